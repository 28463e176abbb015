import { Injectable } from "@nestjs/common";
import { InjectDataSource } from "@nestjs/typeorm";
import { DataSource, type EntityManager } from "typeorm";

import { receiverSql } from "../../ledger/callback-receiver";
import { RECEIVER_DISABLED_ERROR } from "../../ledger/outbox";
import { RECEIVER_DISABLED } from "../receiver-sql";
import { type DisabledReceiver, endpointDisabledNotice, type Notice } from "./notices";

/** What one batch of recorded attempts says of the receivers it went to. */
export interface HealthReport {
  /** The clock's time of the batch: a receiver that starts failing is failing since then. */
  now: Date;
  /** A receiver failing since this time or earlier is disabled by a failed attempt now (now - WEBHOOK_DISABLE_AFTER_HOURS). */
  cutoff: Date;
  /** Receivers with a delivered attempt in the batch: webhook endpoints by id, callbackUrls by their event's ref. */
  delivered: ReceiverRefs;
  /** Receivers whose every attempt in the batch failed. */
  failed: ReceiverRefs;
  /** Callbacks the batch left pending a retry: stopped at once should their receiver be disabled (by now, or by another worker). */
  pending: string[];
}

export interface ReceiverRefs {
  webhooks: string[];
  events: string[];
}

interface DisabledRow {
  organization_id: string;
  webhook_id: string | null;
  event_ref: string | null;
  event_id: string | null;
  url: string;
  failing_since: Date;
}

/**
 * The receivers' failure state and what follows from it: `failing_since` set by a receiver's first
 * failed attempt and cleared by a delivered one; a receiver failing since before the cutoff is
 * disabled by its next failed attempt, its pending callbacks kept as failed (RECEIVER_DISABLED_ERROR),
 * and a notice goes to the organization's other endpoints. A batch whose attempts were all delivered
 * costs one statement, which locks nothing unless a receiver was failing.
 */
@Injectable()
export class ReceiverHealthStore {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** Applies the report and writes `notices` (and one endpoint_disabled per receiver disabled now); returns the receivers disabled now. */
  async apply(report: HealthReport, notices: readonly Notice[]): Promise<DisabledReceiver[]> {
    const troubled = report.failed.webhooks.length + report.failed.events.length + report.pending.length + notices.length > 0;
    if (!troubled) {
      await clearFailing(this.dataSource.manager, report.delivered);
      return [];
    }
    return this.dataSource.transaction(async (manager) => {
      await clearFailing(manager, report.delivered);
      await markFailing(manager, report.failed, report.now);
      const disabled = await disable(manager, report);
      await holdCallbacks(manager, disabled, report.pending);
      await insertNotices(manager, [...notices, ...disabled.map(endpointDisabledNotice)]);
      return disabled;
    });
  }
}

/** Ids in one order everywhere, so that two workers updating the same rows cannot deadlock. */
const sorted = (ids: readonly string[]) => [...new Set(ids)].sort();

async function clearFailing(manager: EntityManager, delivered: ReceiverRefs): Promise<void> {
  if (delivered.webhooks.length + delivered.events.length === 0) return;
  await manager.query(
    `WITH webhooks AS (UPDATE webhook_endpoints SET failing_since = NULL WHERE id = ANY($1::uuid[]) AND failing_since IS NOT NULL)
     UPDATE events SET callback_failing_since = NULL WHERE id = ANY($2::uuid[]) AND callback_failing_since IS NOT NULL`,
    [sorted(delivered.webhooks), sorted(delivered.events)],
  );
}

async function markFailing(manager: EntityManager, failed: ReceiverRefs, now: Date): Promise<void> {
  await manager.query(`UPDATE webhook_endpoints SET failing_since = $2 WHERE id = ANY($1::uuid[]) AND failing_since IS NULL`, [
    sorted(failed.webhooks),
    now.toISOString(),
  ]);
  await manager.query(`UPDATE events SET callback_failing_since = $2 WHERE id = ANY($1::uuid[]) AND callback_failing_since IS NULL`, [
    sorted(failed.events),
    now.toISOString(),
  ]);
}

async function disable(manager: EntityManager, { failed, now, cutoff }: HealthReport): Promise<DisabledReceiver[]> {
  // An UPDATE's answer through TypeORM is [rows, count].
  const [webhooks] = await manager.query<[DisabledRow[], number]>(
    `UPDATE webhook_endpoints SET enabled = false, disabled_reason = 'failing', disabled_at = $2, updated_at = now()
      WHERE id = ANY($1::uuid[]) AND enabled AND failing_since <= $3
     RETURNING organization_id, id AS webhook_id, NULL AS event_ref, NULL AS event_id, url, failing_since`,
    [sorted(failed.webhooks), now.toISOString(), cutoff.toISOString()],
  );
  const [events] = await manager.query<[DisabledRow[], number]>(
    `UPDATE events SET callback_disabled_at = $2
      WHERE id = ANY($1::uuid[]) AND callback_disabled_at IS NULL AND callback_failing_since <= $3
     RETURNING organization_id, NULL AS webhook_id, id AS event_ref, event_id, callback_url AS url, callback_failing_since AS failing_since`,
    [sorted(failed.events), now.toISOString(), cutoff.toISOString()],
  );
  return [...webhooks, ...events].map((row) => ({
    organizationId: row.organization_id,
    webhookId: row.webhook_id,
    eventRef: row.event_ref,
    eventId: row.event_id,
    url: row.url,
    failingSince: row.failing_since,
    disabledAt: now,
  }));
}

/** Stops the pending callbacks of the receivers disabled now, and those of the batch whose receiver is disabled anyhow. */
async function holdCallbacks(manager: EntityManager, disabled: readonly DisabledReceiver[], pending: readonly string[]): Promise<void> {
  const hold = `status = 'failed', last_error = $1, leased_until = NULL, updated_at = now()`;
  const webhooks = disabled.flatMap((receiver) => (receiver.webhookId === null ? [] : [receiver.webhookId]));
  const events = disabled.flatMap((receiver) => (receiver.eventRef !== null ? [{ organizationId: receiver.organizationId, eventRef: receiver.eventRef }] : []));
  if (webhooks.length > 0) {
    await manager.query(`UPDATE callbacks SET ${hold} WHERE webhook_ref = ANY($2::uuid[]) AND status = 'pending'`, [RECEIVER_DISABLED_ERROR, webhooks]);
  }
  if (events.length > 0) {
    await manager.query(
      `UPDATE callbacks c SET ${hold} FROM unnest($2::uuid[], $3::uuid[]) AS d(organization_id, event_ref)
        WHERE c.organization_id = d.organization_id AND c.event_ref = d.event_ref AND c.webhook_ref IS NULL AND c.status = 'pending'`,
      [RECEIVER_DISABLED_ERROR, events.map((event) => event.organizationId), events.map((event) => event.eventRef)],
    );
  }
  if (pending.length > 0) {
    await manager.query(`UPDATE callbacks c SET ${hold} WHERE c.id = ANY($2::uuid[]) AND c.status = 'pending' AND ${RECEIVER_DISABLED}`, [
      RECEIVER_DISABLED_ERROR,
      sorted(pending),
    ]);
  }
}

/**
 * One insert for every notice of the batch: a copy for each endpoint of the notice's organization
 * that takes its action, but the endpoint it is about. A disabled endpoint's copy is kept as failed,
 * as any callback of it is (ledger/outbox.ts).
 */
async function insertNotices(manager: EntityManager, notices: readonly Notice[]): Promise<void> {
  if (notices.length === 0) return;
  await manager.query(
    `INSERT INTO callbacks (id, organization_id, order_key, webhook_ref, receiver, payload, status, last_error)
     SELECT x.id, x.organization_id, x.id, x.webhook_ref, x.receiver, x.payload, x.status, x.last_error FROM (
       SELECT gen_random_uuid() AS id, n.organization_id, w.id AS webhook_ref, ${receiverSql("w.url")} AS receiver, n.payload::jsonb AS payload,
              CASE WHEN w.enabled THEN 'pending' ELSE 'failed' END AS status, CASE WHEN w.enabled THEN NULL ELSE $4 END AS last_error, n.ord
         FROM unnest($1::uuid[], $2::uuid[], $3::text[]) WITH ORDINALITY AS n(organization_id, about, payload, ord)
         JOIN webhook_endpoints w ON w.organization_id = n.organization_id AND w.id IS DISTINCT FROM n.about
                                 AND (w.actions IS NULL OR n.payload::jsonb->>'action' = ANY(w.actions))) x
      ORDER BY x.ord, x.webhook_ref`,
    [
      notices.map((notice) => notice.organizationId),
      notices.map((notice) => notice.aboutWebhookId),
      notices.map((notice) => JSON.stringify(notice.payload)),
      RECEIVER_DISABLED_ERROR,
    ],
  );
}
