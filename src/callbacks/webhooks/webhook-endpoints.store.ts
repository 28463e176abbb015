import { Injectable } from "@nestjs/common";
import { InjectDataSource } from "@nestjs/typeorm";
import { DataSource, type EntityManager } from "typeorm";

import { uuidv7 } from "../../common/uuid-v7";
import { receiverOf } from "../../ledger/callback-receiver";
import { RECEIVER_DISABLED_ERROR } from "../../ledger/outbox";
import { isWebhookId } from "../callback-id";
import { WebhookEndpoint } from "./entities/webhook-endpoint.entity";
import type { NewWebhook, WebhookChanges } from "./webhook-input";

/** A test callback as it was sent and answered, for the endpoint's log. */
export interface TestDelivery {
  callbackId: string;
  organizationId: string;
  webhookId: string;
  url: string;
  payload: Record<string, unknown>;
  startedAt: Date;
  durationMs: number;
  statusCode: number | null;
  error: string | null;
  delivered: boolean;
}

/** The SQL of the organizations' webhook endpoints, and of what changing one does to its callbacks. */
@Injectable()
export class WebhookEndpointsStore {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** Oldest first. */
  listForOrganization(organizationId: string): Promise<WebhookEndpoint[]> {
    return this.dataSource.getRepository(WebhookEndpoint).find({ where: { organizationId }, order: { createdAt: "ASC", id: "ASC" } });
  }

  /** Null for an unknown id, and for another organization's endpoint. */
  findForOrganization(organizationId: string, webhookId: string, manager: EntityManager = this.dataSource.manager): Promise<WebhookEndpoint | null> {
    if (!isWebhookId(webhookId)) return Promise.resolve(null);
    return manager.getRepository(WebhookEndpoint).findOneBy({ id: webhookId, organizationId });
  }

  /**
   * Adds an endpoint unless the organization has `max` already (null then). The count and the insert
   * hold the organization's lock, so concurrent requests cannot pass the cap together.
   */
  async create(organizationId: string, webhook: NewWebhook, max: number): Promise<WebhookEndpoint | null> {
    return this.dataSource.transaction(async (manager) => {
      await lockOrganization(manager, organizationId);
      const [{ count }] = await manager.query<{ count: number }[]>(`SELECT count(*)::int AS count FROM webhook_endpoints WHERE organization_id = $1`, [
        organizationId,
      ]);
      if (count >= max) return null;
      const id = uuidv7();
      await manager.query(`INSERT INTO webhook_endpoints (id, organization_id, url, actions, description) VALUES ($1, $2, $3, $4, $5)`, [
        id,
        organizationId,
        webhook.url,
        webhook.actions,
        webhook.description,
      ]);
      return manager.getRepository(WebhookEndpoint).findOneByOrFail({ id });
    });
  }

  /**
   * Applies a PATCH; null when the organization has no such endpoint. A new url takes the endpoint's
   * pending callbacks to its receiver and forgets the old url's failures; disabling it stops its
   * pending callbacks (kept, failed with RECEIVER_DISABLED_ERROR, redeliverable once it is enabled);
   * enabling it again forgets its failures.
   */
  async update(organizationId: string, webhookId: string, changes: WebhookChanges, now: Date): Promise<WebhookEndpoint | null> {
    return this.dataSource.transaction(async (manager) => {
      const [current] = await manager.query<{ id: string; enabled: boolean; url: string }[]>(
        `SELECT id, enabled, url FROM webhook_endpoints WHERE id = $1 AND organization_id = $2 FOR UPDATE`,
        [isWebhookId(webhookId) ? webhookId : null, organizationId],
      );
      if (!current) return null;
      const url = changes.url ?? current.url;
      const enabled = changes.enabled ?? current.enabled;
      await manager.query(
        `UPDATE webhook_endpoints SET url = $2,
                actions = CASE WHEN $3 THEN $4::text[] ELSE actions END,
                description = COALESCE($5, description),
                enabled = $6,
                disabled_reason = CASE WHEN $6 THEN NULL WHEN enabled THEN 'request' ELSE disabled_reason END,
                disabled_at = CASE WHEN $6 THEN NULL WHEN enabled THEN $7 ELSE disabled_at END,
                failing_since = CASE WHEN ($6 AND NOT enabled) OR url <> $2 THEN NULL ELSE failing_since END,
                updated_at = now()
          WHERE id = $1`,
        [current.id, url, changes.actions !== undefined, changes.actions ?? null, changes.description ?? null, enabled, now.toISOString()],
      );
      if (url !== current.url) await retargetPending(manager, current.id, url);
      if (current.enabled && !enabled) await holdPending(manager, current.id);
      return manager.getRepository(WebhookEndpoint).findOneByOrFail({ id: current.id });
    });
  }

  /** Deletes the endpoint with its callbacks and their log; false when the organization has no such endpoint. */
  async delete(organizationId: string, webhookId: string): Promise<boolean> {
    if (!isWebhookId(webhookId)) return false;
    const [, deleted] = await this.dataSource.query<[unknown, number]>(`DELETE FROM webhook_endpoints WHERE id = $1 AND organization_id = $2`, [
      webhookId,
      organizationId,
    ]);
    return deleted > 0;
  }

  /** Logs a test callback with its one attempt: delivered or failed, never retried (a redelivery sends it again). */
  async recordTest(test: TestDelivery): Promise<void> {
    await this.dataSource.query(
      `WITH test AS (
         INSERT INTO callbacks (id, organization_id, order_key, webhook_ref, receiver, payload, status, attempts, last_status_code, last_error, delivered_at)
         VALUES ($1, $2, $1, $3, $4, $5, $6, 1, $7, $8, CASE WHEN $6 = 'delivered' THEN now() END)
         RETURNING id)
       INSERT INTO callback_attempts (id, callback_id, started_at, duration_ms, url, status_code, error)
       SELECT $9, id, $10, $11, $12, $7, $8 FROM test`,
      [
        test.callbackId,
        test.organizationId,
        test.webhookId,
        receiverOf(test.url),
        test.payload,
        test.delivered ? "delivered" : "failed",
        test.statusCode,
        test.error,
        uuidv7(),
        test.startedAt.toISOString(),
        test.durationMs,
        test.url,
      ],
    );
  }
}

/** One organization's endpoint changes, one at a time (a transaction-scoped advisory lock on its id). */
async function lockOrganization(manager: EntityManager, organizationId: string): Promise<void> {
  await manager.query(`SELECT pg_advisory_xact_lock(hashtextextended('webhook_endpoints:' || $1, 0))`, [organizationId]);
}

async function retargetPending(manager: EntityManager, webhookId: string, url: string): Promise<void> {
  await manager.query(`UPDATE callbacks SET receiver = $2, updated_at = now() WHERE webhook_ref = $1 AND status = 'pending'`, [webhookId, receiverOf(url)]);
}

async function holdPending(manager: EntityManager, webhookId: string): Promise<void> {
  await manager.query(
    `UPDATE callbacks SET status = 'failed', last_error = $2, leased_until = NULL, updated_at = now() WHERE webhook_ref = $1 AND status = 'pending'`,
    [webhookId, RECEIVER_DISABLED_ERROR],
  );
}
