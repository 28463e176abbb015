import { Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from "@nestjs/common";
import { InjectDataSource } from "@nestjs/typeorm";
import { DataSource } from "typeorm";

import { uuidv7 } from "../../common/uuid-v7";
import type { AppConfig } from "../../config/app-config";
import { InjectConfig } from "../../config/config.module";
import { WebhookSecretsService } from "../../auth/webhook-secrets.service";
import { CallbackHttp, type DeliveryAnswer } from "./callback-http";
import { signedHeaders } from "./callback-signing";
import { retryAfterMs, retryDelayMs } from "./retry-schedule";

interface ClaimedCallback {
  id: string;
  organization_id: string;
  payload: Record<string, unknown>;
  attempts: number;
  callback_url: string;
}

interface Completed {
  callback: ClaimedCallback;
  answer: DeliveryAnswer;
  startedAt: Date;
}

/** How long results may wait before they are written, so a busy dispatcher writes them in bulk. */
const RESULT_FLUSH_MS = 25;

/**
 * Delivers the outbox. Callbacks are claimed with a lease (FOR UPDATE SKIP LOCKED), so any number of
 * workers share the work and a killed worker's callbacks return after the lease; up to
 * CALLBACK_CONCURRENCY are in flight, so a slow receiver only occupies its own slots. A callback
 * waits until every earlier callback of its ticket (or event) has had a first attempt.
 */
@Injectable()
export class CallbackDispatcher implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(CallbackDispatcher.name);
  private readonly http: CallbackHttp;
  private readonly inFlight = new Set<Promise<void>>();
  private completed: Completed[] = [];
  private timer: NodeJS.Timeout | undefined;
  private flushTimer: NodeJS.Timeout | undefined;
  private stopped = false;
  private claiming = false;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly secrets: WebhookSecretsService,
    @InjectConfig() private readonly config: AppConfig,
  ) {
    this.http = new CallbackHttp({ timeoutMs: config.callbacks.timeoutMs, allowHosts: config.callbacks.allowHosts });
  }

  onApplicationBootstrap(): void {
    if (this.config.callbacks.deliver) this.schedule(0);
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await Promise.allSettled([...this.inFlight]);
    await this.flushResults();
    this.http.close();
  }

  /** Claims and starts as many due callbacks as there is room for; returns how many it started. */
  async dispatch(): Promise<number> {
    if (this.claiming) return 0;
    this.claiming = true;
    try {
      const room = this.config.callbacks.concurrency - this.inFlight.size;
      if (room <= 0) return 0;
      const claimed = await this.claim(room);
      if (claimed.length === 0) return 0;
      const secrets = await this.secrets.activeSecrets([...new Set(claimed.map((c) => c.organization_id))]);
      for (const callback of claimed) this.track(this.deliver(callback, secrets.get(callback.organization_id) ?? []));
      return claimed.length;
    } finally {
      this.claiming = false;
    }
  }

  private schedule(delay: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.dispatch()
        .then((started) => this.schedule(started > 0 ? 0 : this.config.callbacks.pollMs))
        .catch((error: unknown) => {
          this.logger.warn(`callback dispatch failed, retrying: ${(error as Error).message}`);
          this.schedule(this.config.callbacks.pollMs);
        });
    }, delay);
  }

  private track(delivery: Promise<void>): void {
    this.inFlight.add(delivery);
    void delivery.finally(() => this.inFlight.delete(delivery));
  }

  private async claim(limit: number): Promise<ClaimedCallback[]> {
    const [rows] = (await this.dataSource.query(
      `WITH due AS (
         SELECT c.id FROM callbacks c
          WHERE c.status = 'pending' AND c.next_attempt_at <= now() AND (c.leased_until IS NULL OR c.leased_until < now())
            AND NOT EXISTS (SELECT 1 FROM callbacks p WHERE p.order_key = c.order_key AND p.seq < c.seq AND p.status = 'pending' AND p.attempts = 0)
          ORDER BY c.next_attempt_at, c.seq
          LIMIT $1
          FOR UPDATE SKIP LOCKED)
       UPDATE callbacks c SET leased_until = now() + make_interval(secs => $2)
         FROM due, events e
        WHERE c.id = due.id AND e.id = c.event_ref
       RETURNING c.id, c.organization_id, c.payload, c.attempts, e.callback_url`,
      [limit, this.config.callbacks.leaseMs / 1000],
    )) as [ClaimedCallback[], number];
    return rows;
  }

  private async deliver(callback: ClaimedCallback, secrets: string[]): Promise<void> {
    const startedAt = new Date();
    const body = JSON.stringify(callback.payload);
    const answer =
      secrets.length === 0
        ? { statusCode: null, error: "the organization has no webhook secret to sign with", durationMs: 0, retryAfter: undefined }
        : await this.http.post(callback.callback_url, body, signedHeaders(callback.id, body, secrets, startedAt));
    this.completed.push({ callback, answer, startedAt });
    this.flushTimer ??= setTimeout(() => void this.flushResults(), RESULT_FLUSH_MS);
  }

  /** Records finished attempts in two statements: the attempt log and the callbacks' new states. */
  private async flushResults(): Promise<void> {
    clearTimeout(this.flushTimer);
    this.flushTimer = undefined;
    const batch = this.completed;
    this.completed = [];
    if (batch.length === 0) return;
    const outcomes = batch.map((done) => ({ done, ...this.outcomeOf(done) }));
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
  }

  /** 2xx delivers; 410 stops; anything else is retried on the schedule (Retry-After honoured) until the attempts run out. */
  private outcomeOf({ callback, answer }: Completed): { status: "delivered" | "failed" | "pending"; nextAttemptAt: Date | null } {
    const code = answer.statusCode;
    if (code !== null && code >= 200 && code < 300) return { status: "delivered", nextAttemptAt: null };
    const attempts = callback.attempts + 1;
    if (code === 410 || attempts >= this.config.callbacks.maxAttempts) return { status: "failed", nextAttemptAt: null };
    const asked = code === 429 || code === 503 ? retryAfterMs(answer.retryAfter) : null;
    return { status: "pending", nextAttemptAt: new Date(Date.now() + Math.max(retryDelayMs(attempts), asked ?? 0)) };
  }
}
