import { type BeforeApplicationShutdown, Injectable } from "@nestjs/common";
import { InjectDataSource } from "@nestjs/typeorm";
import { DataSource, type QueryRunner } from "typeorm";

import { uuidv7 } from "../common/uuid-v7";
import { isCallbackId } from "./callback-id";
import type { RedeliveryFilter } from "./dto/redeliver-callbacks.dto";
import { receiverSql } from "../ledger/callback-receiver";
import { RECEIVER_DISABLED, TARGET_URL } from "./receiver-sql";

/** A callback leased to one worker for one attempt. */
export interface ClaimedCallback {
  id: string;
  /** Null for a notice (endpoint_disabled, callback_exhausted, test), which no action brought. */
  actionId: string | null;
  /** The request that brought the action, for the delivery's log line. */
  requestId: string | null;
  organizationId: string;
  /** The receiver it goes to: a webhook endpoint, or (null) its event's callbackUrl. */
  webhookId: string | null;
  /** Its event; null for a notice. */
  eventRef: string | null;
  payload: Record<string, unknown>;
  /** Attempts made before this one. */
  attempts: number;
  /** The receiver's URL as it is now: the endpoint's, or the event's callbackUrl. */
  callbackUrl: string;
  createdAt: Date;
  /**
   * When its lease ends, by the worker's clock (ms since the epoch): taken before the claim was
   * sent, so no later than the lease the database wrote.
   */
  leaseEndsAt: number;
}

/** How many callbacks one claim may take per receiver (see ReceiverSlots). */
export interface ReceiverShares {
  /** Receivers with too little room to be worth a claim: none of theirs is taken. */
  full: string[];
  /** Receivers with callbacks in flight, and how many more each may take. */
  inFlight: { receiver: string; room: number }[];
  /** How many a receiver with nothing in flight may take. */
  idleRoom: number;
}

/** One finished attempt and what it made of its callback. */
export interface AttemptResult {
  callbackId: string;
  startedAt: Date;
  durationMs: number;
  url: string;
  statusCode: number | null;
  error: string | null;
  status: "delivered" | "failed" | "pending";
  /** When a pending callback is tried again; null leaves the time as it was. */
  nextAttemptAt: Date | null;
}

interface ClaimedRow {
  id: string;
  action_id: string | null;
  request_id: string | null;
  organization_id: string;
  webhook_ref: string | null;
  event_ref: string | null;
  payload: Record<string, unknown>;
  attempts: number;
  callback_url: string;
  created_at: Date;
}

/**
 * The outbox's state changes: leases (FOR UPDATE SKIP LOCKED, so any number of workers share the
 * work and a killed worker's callbacks return when the lease ends), attempt results, redelivery.
 * The outbox is written by the ledger (insertCallbacks) and read for organizations by CallbacksStore.
 */
@Injectable()
export class CallbackOutboxStore implements BeforeApplicationShutdown {
  /** The claims' own connection (openClaimConnection), while it is open or opening. */
  private claimConnection: Promise<QueryRunner> | undefined;
  private readonly claimsRunning = new Set<Promise<ClaimedCallback[]>>();

  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /**
   * Leases up to `limit` due callbacks for `leaseMs`, no receiver beyond its share. A callback waits
   * while an earlier action (by acceptance order) of its ticket, or for an event callback of its
   * event, is still on its way to the chain or has a callback that has not had its first attempt:
   * so an updateTicket accepted after a sale is not reported before the sale is.
   */
  async claimDue(limit: number, leaseMs: number, shares: ReceiverShares): Promise<ClaimedCallback[]> {
    const params = [
      limit,
      leaseMs / 1000,
      shares.full,
      shares.inFlight.map(({ receiver }) => receiver),
      shares.inFlight.map(({ room }) => room),
      shares.idleRoom,
    ];
    const claim = (async () => {
      try {
        const runner = await (this.claimConnection ??= this.openClaimConnection());
        const leaseEndsAt = Date.now() + leaseMs;
        const [rows] = (await runner.query(CLAIM_DUE, params)) as [ClaimedRow[], number];
        return rows.map((row) => toClaimedCallback(row, leaseEndsAt));
      } catch (error) {
        // The next claim starts on a fresh connection, whatever broke this one: a connection that
        // could not be opened (the database unreachable) included, or every later claim would
        // await the same failed opening.
        await this.releaseClaimConnection();
        throw error;
      }
    })();
    this.claimsRunning.add(claim);
    try {
      return await claim;
    } finally {
      this.claimsRunning.delete(claim);
    }
  }

  /** Once the claims running now end, returns their connection to the pool (the pool waits for it to close). */
  async closeClaims(): Promise<void> {
    await Promise.allSettled([...this.claimsRunning]);
    await this.releaseClaimConnection();
  }

  beforeApplicationShutdown(): Promise<void> {
    return this.closeClaims();
  }

  private async releaseClaimConnection(): Promise<void> {
    const opening = this.claimConnection;
    this.claimConnection = undefined;
    const runner = await opening?.catch(() => undefined);
    if (!runner || runner.isReleased) return;
    // Back in the pool, the connection plans as any other; should this fail, the connection is
    // broken, and a plan without JIT would harm nobody anyway.
    await runner.query(`RESET jit`).catch(() => undefined);
    await runner.release();
  }

  /**
   * Claims run one after the other on a connection of their own, kept open with JIT off: the
   * planner cannot know how few receivers, and how little room, the walk meets, its cost estimate
   * passes jit_above_cost, and compiling the plan took 1.3 s where running it took 20 ms (EXPLAIN
   * ANALYZE, 3,000 callbacks of a full receiver). A setting of the session, not of a transaction of
   * each claim's own: a claim is one statement and one round trip, where BEGIN, SET LOCAL, the claim
   * and COMMIT took four, each waiting for the dispatcher's busy event loop.
   */
  private async openClaimConnection(): Promise<QueryRunner> {
    const runner = this.dataSource.createQueryRunner();
    try {
      await runner.query(`SET jit = off`);
      return runner;
    } catch (error) {
      await runner.release();
      throw error;
    }
  }

  /**
   * Writes the attempt log and the callbacks' new states (delivered, failed, or pending a retry),
   * and ends their leases: one statement for the whole batch, so all of it or none is written.
   */
  async recordAttempts(results: readonly AttemptResult[]): Promise<void> {
    if (results.length === 0) return;
    await this.dataSource.query(RECORD_ATTEMPTS, [
      results.map(() => uuidv7()),
      results.map((result) => result.callbackId),
      results.map((result) => result.startedAt.toISOString()),
      results.map((result) => result.durationMs),
      results.map((result) => result.url),
      results.map((result) => result.statusCode),
      results.map((result) => result.error),
      results.map((result) => result.status),
      results.map((result) => result.nextAttemptAt?.toISOString() ?? null),
    ]);
  }

  /**
   * Makes the organization's callback due now with a fresh retry schedule: `queued`; `not_found` when
   * it has no such callback; `receiver_disabled` when its receiver is disabled (nothing changes:
   * enable the receiver first).
   */
  async scheduleRedelivery(organizationId: string, callbackId: string): Promise<"queued" | "not_found" | "receiver_disabled"> {
    if (!isCallbackId(callbackId)) return "not_found";
    // Retention deleting the row in between (it holds the row lock until it commits) leaves the
    // update nothing to change once it has waited: the callback is gone, as if never found.
    const [row] = await this.dataSource.query<{ held: boolean; queued: boolean }[]>(
      `WITH target AS (SELECT c.id, ${RECEIVER_DISABLED} AS held FROM callbacks c WHERE c.id = $1 AND c.organization_id = $2),
            queued AS (UPDATE callbacks c SET ${REDELIVERY} FROM target t WHERE c.id = t.id AND NOT t.held RETURNING c.id)
       SELECT t.held, EXISTS (SELECT 1 FROM queued) AS queued FROM target t`,
      [callbackId, organizationId],
    );
    if (!row) return "not_found";
    if (row.queued) return "queued";
    return row.held ? "receiver_disabled" : "not_found";
  }

  /**
   * Makes every callback of the organization that the filter takes due now with a fresh retry
   * schedule, as scheduleRedelivery does one, except those leased to a worker at this moment: those
   * are being delivered and are left alone, so a callback is never sent twice at once. Row locks
   * make a concurrent call with the same filter wait and then skip what this one queued (its status
   * changed, or a worker leased it).
   */
  async scheduleRedeliveries(organizationId: string, filter: RedeliveryFilter): Promise<{ queued: number; inFlight: number; receiverDisabled: number }> {
    const [row] = await this.dataSource.query<{ queued: number; in_flight: number; receiver_disabled: number }[]>(
      `WITH matching AS (
         SELECT c.id, c.leased_until >= now() AS leased, ${RECEIVER_DISABLED} AS held FROM callbacks c LEFT JOIN events e ON e.id = c.event_ref
          WHERE c.organization_id = $1 AND c.status = ANY($2::text[])
            AND ($3::text IS NULL OR e.event_id = $3) AND ($4::timestamptz IS NULL OR c.created_at >= $4)
            AND ($5::uuid IS NULL OR c.webhook_ref = $5)),
       queued AS (
         UPDATE callbacks c SET ${REDELIVERY} FROM matching m
          WHERE c.id = m.id AND NOT m.held AND c.status = ANY($2::text[]) AND (c.leased_until IS NULL OR c.leased_until < now())
         RETURNING c.id)
       SELECT (SELECT count(*) FROM queued)::int AS queued, (SELECT count(*) FROM matching WHERE leased AND NOT held)::int AS in_flight,
              (SELECT count(*) FROM matching WHERE held)::int AS receiver_disabled`,
      [organizationId, filter.statuses, filter.eventId, filter.since?.toISOString() ?? null, filter.webhookId],
    );
    return { queued: row.queued, inFlight: row.in_flight, receiverDisabled: row.receiver_disabled };
  }
}

function toClaimedCallback(row: ClaimedRow, leaseEndsAt: number): ClaimedCallback {
  return {
    id: row.id,
    actionId: row.action_id,
    requestId: row.request_id,
    organizationId: row.organization_id,
    webhookId: row.webhook_ref,
    eventRef: row.event_ref,
    payload: row.payload,
    attempts: row.attempts,
    callbackUrl: row.callback_url,
    createdAt: row.created_at,
    leaseEndsAt,
  };
}

/** A redelivery of callback `c`: due now, with a fresh retry schedule (its id, the webhook-id, stays), to its receiver as it is now. */
const REDELIVERY = `status = 'pending', receiver = ${receiverSql(TARGET_URL)}, attempts = 0, next_attempt_at = now(), leased_until = NULL, updated_at = now()`;

/**
 * An earlier action `a` whose callback to the candidate `c`'s receiver is not out yet: still on its
 * way to the chain, or that receiver's copy of its callback has had no attempt. Each receiver keeps
 * its own order: a receiver that is slow, or disabled, holds back only its own copies.
 */
const UNREPORTED = `(a.status IN ('waiting_broadcast', 'waiting_funds', 'pending') OR EXISTS (SELECT 1 FROM callbacks p WHERE p.action_id = a.id AND p.webhook_ref IS NOT DISTINCT FROM c.webhook_ref AND p.status = 'pending' AND p.attempts = 0))`;

/**
 * $1 how many, $2 the lease in seconds, $3 the receivers left out, $4/$5 those in flight and their
 * room, $6 the room of any other receiver. The receivers with pending callbacks come from a skip
 * scan of callbacks_receiver_due_idx (one index probe per receiver, however many it has waiting);
 * each one with room is then walked on its own in due order, only as far as its room, so a full
 * receiver's backlog is never read. The order check (per candidate, on the ledger's ticket or event
 * index) runs on those read; of all that pass, the $1 longest due are leased.
 *
 * The claim runs outside any transaction, so it commits as it ends, and set_config(..., true) makes
 * that commit not wait for the WAL to reach the disk (about half the claim's time in the delivery
 * benchmark). A lease lost in a database crash lets its callback be claimed again, perhaps while its
 * first delivery is still under way: a duplicate, which at-least-once delivery allows and the
 * webhook-id lets receivers drop. Attempt results are written durably.
 */
const CLAIM_DUE = `WITH RECURSIVE commit_mode AS MATERIALIZED (SELECT set_config('synchronous_commit', 'off', true)),
   receivers AS (
     (SELECT c.receiver FROM callbacks c WHERE c.status = 'pending' ORDER BY c.receiver LIMIT 1)
     UNION ALL
     SELECT (SELECT c.receiver FROM callbacks c WHERE c.status = 'pending' AND c.receiver > r.receiver ORDER BY c.receiver LIMIT 1)
       FROM receivers r WHERE r.receiver IS NOT NULL),
   rooms AS (
     -- No receiver beyond its free slots: $4/$5 are those in flight and their room, the rest have $6.
     SELECT r.receiver, LEAST(COALESCE(f.room, $6), $1) AS room FROM receivers r
       LEFT JOIN unnest($4::text[], $5::int[]) AS f(receiver, room) ON f.receiver = r.receiver
      WHERE r.receiver IS NOT NULL AND NOT (r.receiver = ANY($3::text[]))),
   due AS MATERIALIZED (
     SELECT d.id, d.next_attempt_at, d.seq FROM rooms r CROSS JOIN LATERAL (
       -- Scalar subqueries and OFFSET 0 keep this a lazy walk of the receiver's index in due order
       -- (no join the planner could turn into a hash over every candidate): each row is looked at
       -- only until the receiver's room is found.
       SELECT c.id, c.next_attempt_at, c.seq FROM (
           SELECT c.id, c.action_id, c.ticket_ref, c.event_ref, c.webhook_ref, c.next_attempt_at, c.seq,
                  (SELECT seq FROM chain_actions WHERE id = c.action_id) AS action_seq
             FROM callbacks c
            WHERE c.receiver = r.receiver AND c.status = 'pending' AND c.next_attempt_at <= now()
              AND (c.leased_until IS NULL OR c.leased_until < now())
            ORDER BY c.next_attempt_at, c.seq OFFSET 0) c
        WHERE CASE WHEN c.action_id IS NULL THEN true
              WHEN c.ticket_ref IS NULL
              THEN NOT EXISTS (SELECT 1 FROM chain_actions a WHERE a.event_ref = c.event_ref AND a.ticket_ref IS NULL AND a.seq < c.action_seq AND ${UNREPORTED})
              ELSE NOT EXISTS (SELECT 1 FROM chain_actions a WHERE a.ticket_ref = c.ticket_ref AND a.seq < c.action_seq AND ${UNREPORTED})
              END
        LIMIT r.room) d
      ORDER BY d.next_attempt_at, d.seq
      LIMIT $1),
   leased AS (
     -- Another worker may have leased some since this statement began: those are skipped.
     SELECT c.id, COALESCE(w.url, e.callback_url) AS url, a.request_id FROM callbacks c JOIN due ON due.id = c.id
       LEFT JOIN webhook_endpoints w ON w.id = c.webhook_ref
       LEFT JOIN events e ON e.id = c.event_ref
       LEFT JOIN chain_actions a ON a.id = c.action_id
      WHERE c.status = 'pending' AND (c.leased_until IS NULL OR c.leased_until < now())
      FOR UPDATE OF c SKIP LOCKED)
   -- The receiver is set again from its URL: one written beside a concurrent change of the event's
   -- callbackUrl (or of the endpoint's url) is right from its first attempt on.
   UPDATE callbacks c SET leased_until = now() + make_interval(secs => $2), receiver = ${receiverSql("leased.url")}
     FROM leased, commit_mode
    WHERE c.id = leased.id
   RETURNING c.id, c.action_id, leased.request_id, c.organization_id, c.webhook_ref, c.event_ref, c.payload, c.attempts, leased.url AS callback_url, c.created_at`;

/**
 * $1–$9: per attempt its log id, callback, start, duration, url, status code, error, the callback's
 * new status and next attempt time. The log rows and the new states in one statement: a single
 * round trip and commit for the batch, atomic as a statement is.
 */
const RECORD_ATTEMPTS = `WITH results AS (
     SELECT * FROM unnest($1::uuid[], $2::uuid[], $3::timestamptz[], $4::int[], $5::text[], $6::int[], $7::text[], $8::text[], $9::timestamptz[])
       AS u(attempt_id, callback_id, started_at, duration_ms, url, status_code, error, status, next_attempt_at)),
   states AS (
     -- A callback its receiver's disabling stopped while this attempt was on its way (failed while
     -- leased) stays stopped, unless the attempt delivered it.
     UPDATE callbacks AS c SET status = CASE WHEN c.status = 'failed' AND r.status = 'pending' THEN 'failed' ELSE r.status END,
            attempts = c.attempts + 1, next_attempt_at = COALESCE(r.next_attempt_at, c.next_attempt_at),
            last_status_code = r.status_code, last_error = CASE WHEN c.status = 'failed' AND r.status = 'pending' THEN c.last_error ELSE r.error END,
            leased_until = NULL,
            delivered_at = CASE WHEN r.status = 'delivered' THEN now() ELSE c.delivered_at END, updated_at = now()
       FROM results r
      WHERE c.id = r.callback_id
     RETURNING c.id)
   -- A callback deleted meanwhile (its webhook endpoint was) has no log left to add to.
   INSERT INTO callback_attempts (id, callback_id, started_at, duration_ms, url, status_code, error)
   SELECT r.attempt_id, r.callback_id, r.started_at, r.duration_ms, r.url, r.status_code, r.error FROM results r JOIN states s ON s.id = r.callback_id`;
