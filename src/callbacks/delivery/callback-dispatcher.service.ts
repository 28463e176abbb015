import { type BeforeApplicationShutdown, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from "@nestjs/common";
import { InjectDataSource } from "@nestjs/typeorm";
import { DataSource } from "typeorm";

import { uuidv7 } from "../../common/uuid-v7";
import type { AppConfig } from "../../config/app-config";
import { InjectConfig } from "../../config/config.module";
import { WebhookSecretsService } from "../secrets/webhook-secrets.service";
import { DeliveryMetrics } from "./delivery-metrics";
import { CallbackHttp, type DeliveryAnswer } from "./callback-http";
import { signedHeaders } from "./callback-signing";
import { logDelivery } from "./delivery-log";
import { retryAfterMs, retryDelayMs } from "./retry-schedule";

interface ClaimedCallback {
  id: string;
  action_id: string;
  /** The request that brought the action, for the delivery's log line. */
  request_id: string | null;
  organization_id: string;
  payload: Record<string, unknown>;
  attempts: number;
  callback_url: string;
  created_at: Date;
}

interface Completed {
  callback: ClaimedCallback;
  answer: DeliveryAnswer;
  startedAt: Date;
}

/** An earlier action `a` whose callback is not out yet: still on its way to the chain, or its callback has had no attempt. */
const UNREPORTED = `(a.status IN ('waiting_broadcast', 'pending') OR EXISTS (SELECT 1 FROM callbacks p WHERE p.action_id = a.id AND p.status = 'pending' AND p.attempts = 0))`;

/** The receiver of a callbackUrl, `scheme://authority` in lower case: computed alike here and in SQL. */
function receiverOf(url: string): string {
  return (/^[A-Za-z][A-Za-z0-9+.-]*:\/\/[^/?#]*/.exec(url)?.[0] ?? url).toLowerCase();
}
const RECEIVER_SQL = `lower(COALESCE(substring(ce.callback_url from '^[A-Za-z][A-Za-z0-9+.-]*://[^/?#]*'), ce.callback_url))`;

/** How long results may wait before they are written, so a busy dispatcher writes them in bulk. */
const RESULT_FLUSH_MS = 25;

/**
 * Delivers the outbox. Callbacks are claimed with a lease (FOR UPDATE SKIP LOCKED), so any number of
 * workers share the work and a killed worker's callbacks return after the lease. Up to
 * CALLBACK_CONCURRENCY are in flight, and at most half of them to one receiver (scheme, host and
 * port of the callbackUrl), so a slow receiver, however many callbacks it has, leaves the other half
 * to the rest. A callback waits until every earlier action of its ticket (or event) is final and
 * its callback has had a first attempt.
 */
@Injectable()
export class CallbackDispatcher implements OnApplicationBootstrap, BeforeApplicationShutdown, OnApplicationShutdown {
  private readonly logger = new Logger(CallbackDispatcher.name);
  private readonly http: CallbackHttp;
  private readonly inFlight = new Set<Promise<void>>();
  private completed: Completed[] = [];
  private flushTimer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> = Promise.resolve();
  private stopped = false;
  private claiming = false;
  /** The claim loop, while it runs. */
  private loop: Promise<void> | undefined;
  /** Wakes the loop early: when it sleeps between polls, or waits for room. */
  private wake: (() => void) | undefined;
  private waitingForRoom = false;
  /** The loop claims when at least this many slots are free, so one claim carries many callbacks. */
  private readonly claimBatch: number;
  /** In flight per receiver (scheme://host:port of the callbackUrl), and the most one receiver may hold. */
  private readonly perHost = new Map<string, number>();
  private readonly hostLimit: number;
  private readonly hostClaimBatch: number;
  /** Receivers with too few free slots after the last claim: when one gets room again, the loop claims at once. */
  private capped = new Set<string>();

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly secrets: WebhookSecretsService,
    @InjectConfig() private readonly config: AppConfig,
    private readonly metrics: DeliveryMetrics,
  ) {
    this.http = new CallbackHttp({ timeoutMs: config.callbacks.timeoutMs, allowHosts: config.callbacks.allowHosts });
    this.claimBatch = Math.max(1, Math.floor(config.callbacks.concurrency / 10));
    // Half the slots at most for one receiver: a slow one (or one with a large backlog) leaves the
    // other half to everybody else.
    this.hostLimit = Math.max(1, Math.floor(config.callbacks.concurrency / 2));
    this.hostClaimBatch = Math.min(this.claimBatch, this.hostLimit);
  }

  onApplicationBootstrap(): void {
    if (this.config.callbacks.deliver) this.loop = this.run();
  }

  /** Stops claiming, lets the deliveries in flight finish and records them before the database closes. */
  async beforeApplicationShutdown(): Promise<void> {
    this.stopped = true;
    this.wake?.();
    await this.loop;
    await Promise.allSettled([...this.inFlight]);
    await this.flushResults();
  }

  onApplicationShutdown(): void {
    this.http.close();
  }

  /**
   * Claims and starts as many due callbacks as there is room for; returns how many it started.
   * Each receiver gets no more than its share of the slots (see hostLimit).
   */
  async dispatch(): Promise<number> {
    if (this.claiming) return 0;
    this.claiming = true;
    try {
      const room = this.config.callbacks.concurrency - this.inFlight.size;
      if (room <= 0) return 0;
      const claimed = await this.claim(room);
      if (claimed.length === 0) return 0;
      const secrets = await this.secrets.activeSecrets([...new Set(claimed.map((c) => c.organization_id))]);
      for (const callback of claimed) this.track(callback, this.deliver(callback, secrets.get(callback.organization_id) ?? []));
      return claimed.length;
    } finally {
      this.claiming = false;
    }
  }

  /** Slots a receiver may still take. */
  private hostRoom(receiver: string): number {
    return this.hostLimit - (this.perHost.get(receiver) ?? 0);
  }

  /** Receivers with too few free slots to be worth a claim: left out of the next one. */
  private busyReceivers(): string[] {
    return [...this.perHost.keys()].filter((receiver) => this.hostRoom(receiver) < this.hostClaimBatch);
  }

  /**
   * Claims whenever a batch of slots is free (woken as deliveries finish, not by a timer, so a fast
   * receiver keeps every slot busy), and polls every CALLBACK_POLL_MS when nothing more is due.
   */
  private async run(): Promise<void> {
    while (!this.stopped) {
      let more = false;
      try {
        const room = this.config.callbacks.concurrency - this.inFlight.size;
        const started = await this.dispatch();
        more = started > 0 && started === room;
      } catch (error) {
        this.logger.warn(`callback dispatch failed, retrying: ${(error as Error).message}`);
      }
      if (this.stopped) return;
      this.capped = new Set(this.busyReceivers());
      if (this.config.callbacks.concurrency - this.inFlight.size < this.claimBatch) await this.pause(null);
      else if (!more) await this.pause(this.config.callbacks.pollMs);
    }
  }

  /**
   * Waits `ms` (or until recorded results may have made callbacks due: a ticket's next callback
   * waits for the previous one's first attempt), or with null until a batch of slots is free.
   * Stopping wakes it.
   */
  private pause(ms: number | null): Promise<void> {
    return new Promise((resolve) => {
      const timer = ms === null ? undefined : setTimeout(() => done(), ms);
      const done = () => {
        clearTimeout(timer);
        this.wake = undefined;
        this.waitingForRoom = false;
        resolve();
      };
      this.waitingForRoom = ms === null;
      this.wake = done;
    });
  }

  private track(callback: ClaimedCallback, delivery: Promise<void>): void {
    const host = receiverOf(callback.callback_url);
    this.inFlight.add(delivery);
    this.perHost.set(host, (this.perHost.get(host) ?? 0) + 1);
    void delivery.finally(() => {
      this.inFlight.delete(delivery);
      const count = (this.perHost.get(host) ?? 1) - 1;
      if (count === 0) this.perHost.delete(host);
      else this.perHost.set(host, count);
      const roomAgain = this.waitingForRoom && this.config.callbacks.concurrency - this.inFlight.size >= this.claimBatch;
      // A receiver the last claim left out has room again: claim now rather than at the next poll.
      const hostAgain = !this.waitingForRoom && this.hostLimit - count === this.hostClaimBatch && this.capped.has(host);
      if (roomAgain || hostAgain) this.wake?.();
    });
  }

  /**
   * Due callbacks, leased to this worker. A callback waits while an earlier action (by acceptance
   * order) of its ticket, or for an event callback of its event, is still on its way to the chain
   * or has a callback that has not had its first attempt: so an updateTicket accepted after a sale
   * is not reported before the sale is.
   */
  private async claim(limit: number): Promise<ClaimedCallback[]> {
    const inFlight = [...this.perHost.keys()];
    // The candidates come in due order and are read only as far as needed: the order check (per
    // candidate, on the ledger's ticket or event index) runs on those read until `limit` pass,
    // whatever the planner's fast-aging statistics of the outbox say.
    const [rows] = (await this.dataSource.query(
      `WITH candidates AS MATERIALIZED (
         SELECT c.id, c.action_id, c.ticket_ref, c.event_ref FROM callbacks c
          WHERE c.status = 'pending' AND c.next_attempt_at <= now() AND (c.leased_until IS NULL OR c.leased_until < now())
          ORDER BY c.next_attempt_at, c.seq),
       due AS MATERIALIZED (
         -- Scalar subqueries and OFFSET 0 keep this a lazy walk in due order (no join the planner could
         -- turn into a hash over every candidate): each row is looked at only until $1 are found.
         SELECT c.id, c.receiver FROM (
             SELECT c.id, c.ticket_ref, c.event_ref,
                    (SELECT seq FROM chain_actions WHERE id = c.action_id) AS action_seq,
                    (SELECT ${RECEIVER_SQL} FROM events ce WHERE ce.id = c.event_ref) AS receiver
               FROM candidates c OFFSET 0) c
          WHERE NOT (c.receiver = ANY($3::text[]))
            AND CASE WHEN c.ticket_ref IS NULL
                THEN NOT EXISTS (SELECT 1 FROM chain_actions a WHERE a.event_ref = c.event_ref AND a.ticket_ref IS NULL AND a.seq < c.action_seq AND ${UNREPORTED})
                ELSE NOT EXISTS (SELECT 1 FROM chain_actions a WHERE a.ticket_ref = c.ticket_ref AND a.seq < c.action_seq AND ${UNREPORTED})
                END
          LIMIT $1),
       shared AS (
         -- No receiver beyond its free slots: $4/$5 are those in flight and their room, the rest have $6.
         SELECT d.id FROM (SELECT d.id, d.receiver, row_number() OVER (PARTITION BY d.receiver) AS n FROM due d) d
           LEFT JOIN unnest($4::text[], $5::int[]) AS r(receiver, room) ON r.receiver = d.receiver
          WHERE d.n <= COALESCE(r.room, $6)),
       leased AS (
         -- Another worker may have leased some since this statement began: those are skipped.
         SELECT c.id FROM callbacks c JOIN shared ON shared.id = c.id
          WHERE c.status = 'pending' AND (c.leased_until IS NULL OR c.leased_until < now())
          FOR UPDATE OF c SKIP LOCKED)
       UPDATE callbacks c SET leased_until = now() + make_interval(secs => $2)
         FROM leased, events e, chain_actions a
        WHERE c.id = leased.id AND e.id = c.event_ref AND a.id = c.action_id
       RETURNING c.id, c.action_id, a.request_id, c.organization_id, c.payload, c.attempts, e.callback_url, c.created_at`,
      [limit, this.config.callbacks.leaseMs / 1000, this.busyReceivers(), inFlight, inFlight.map((receiver) => this.hostRoom(receiver)), this.hostLimit],
    )) as [ClaimedCallback[], number];
    return rows;
  }

  private async deliver(callback: ClaimedCallback, secrets: string[]): Promise<void> {
    const startedAt = new Date();
    const body = JSON.stringify(callback.payload);
    let answer: DeliveryAnswer;
    try {
      answer =
        secrets.length === 0
          ? { statusCode: null, error: "the organization has no webhook secret to sign with", durationMs: 0, retryAfter: undefined }
          : await this.http.post(callback.callback_url, body, signedHeaders(callback.id, body, secrets, startedAt));
    } catch (error) {
      // Signing can throw (a secret that is not base64): a failed attempt, not a crashed worker.
      answer = { statusCode: null, error: `could not send: ${(error as Error).message}`, durationMs: Date.now() - startedAt.getTime(), retryAfter: undefined };
    }
    this.completed.push({ callback, answer, startedAt });
    this.flushTimer ??= setTimeout(() => void this.flushResults(), RESULT_FLUSH_MS);
  }

  /** Records the finished attempts; one write at a time, in the order the attempts finished. */
  private flushResults(): Promise<void> {
    clearTimeout(this.flushTimer);
    this.flushTimer = undefined;
    const batch = this.completed;
    this.completed = [];
    if (batch.length > 0) {
      this.flushing = this.flushing.then(() => this.record(batch)).then(() => {
        if (!this.waitingForRoom) this.wake?.();
      });
    }
    return this.flushing;
  }

  /** Records finished attempts in two statements: the attempt log and the callbacks' new states. */
  private async record(batch: Completed[]): Promise<void> {
    const outcomes = batch.map((done) => ({ done, ...this.outcomeOf(done) }));
    for (const { done, status } of outcomes) {
      this.metrics.attempted({ statusCode: done.answer.statusCode, durationMs: done.answer.durationMs, result: status, createdAt: done.callback.created_at });
    }
    try {
      await this.dataSource.transaction(async (manager) => {
        await manager.query(
          `INSERT INTO callback_attempts (id, callback_id, started_at, duration_ms, url, status_code, error)
           SELECT * FROM unnest($1::uuid[], $2::uuid[], $3::timestamptz[], $4::int[], $5::text[], $6::int[], $7::text[])`,
          [
            outcomes.map(() => uuidv7()),
            outcomes.map((o) => o.done.callback.id),
            outcomes.map((o) => o.done.startedAt.toISOString()),
            outcomes.map((o) => o.done.answer.durationMs),
            outcomes.map((o) => o.done.callback.callback_url),
            outcomes.map((o) => o.done.answer.statusCode),
            outcomes.map((o) => o.done.answer.error),
          ],
        );
        await manager.query(
          `UPDATE callbacks AS c SET status = u.status, attempts = c.attempts + 1, next_attempt_at = COALESCE(u.next_attempt_at, c.next_attempt_at),
                  last_status_code = u.status_code, last_error = u.error, leased_until = NULL,
                  delivered_at = CASE WHEN u.status = 'delivered' THEN now() ELSE c.delivered_at END, updated_at = now()
             FROM unnest($1::uuid[], $2::text[], $3::timestamptz[], $4::int[], $5::text[]) AS u(id, status, next_attempt_at, status_code, error)
            WHERE c.id = u.id`,
          [
            outcomes.map((o) => o.done.callback.id),
            outcomes.map((o) => o.status),
            outcomes.map((o) => o.nextAttemptAt?.toISOString() ?? null),
            outcomes.map((o) => o.done.answer.statusCode),
            outcomes.map((o) => o.done.answer.error),
          ],
        );
      });
    } catch (error) {
      // Unrecorded attempts come back when their lease ends: a callback may be sent twice, never lost.
      this.logger.warn(`recording ${batch.length} callback attempts failed: ${(error as Error).message}`);
    }
    for (const { done, status, nextAttemptAt } of outcomes) {
      const { callback, answer } = done;
      logDelivery(this.logger, {
        callbackId: callback.id,
        actionId: callback.action_id,
        requestId: callback.request_id,
        attempt: callback.attempts + 1,
        url: callback.callback_url,
        statusCode: answer.statusCode,
        error: answer.error,
        durationMs: answer.durationMs,
        status,
        nextAttemptAt,
      });
    }
  }

  /** 2xx delivers; 410 stops; anything else is retried on the schedule (Retry-After honoured) until the attempts run out. */
  private outcomeOf({ callback, answer }: Completed): { status: "delivered" | "failed" | "pending"; nextAttemptAt: Date | null } {
    const code = answer.statusCode;
    if (code !== null && code >= 200 && code < 300) return { status: "delivered", nextAttemptAt: null };
    const attempts = callback.attempts + 1;
    if (code === 410 || attempts >= this.config.callbacks.maxAttempts) return { status: "failed", nextAttemptAt: null };
    const asked = code === 429 || code === 503 ? retryAfterMs(answer.retryAfter) : null;
    return { status: "pending", nextAttemptAt: new Date(Date.now() + Math.max(retryDelayMs(attempts, Math.random, this.config.callbacks.retryScale), asked ?? 0)) };
  }
}
