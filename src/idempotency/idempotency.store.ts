import { randomUUID } from "node:crypto";

import { Injectable, Logger, type OnModuleDestroy, type OnModuleInit } from "@nestjs/common";
import { InjectDataSource } from "@nestjs/typeorm";
import { DataSource, type EntityManager } from "typeorm";

import type { AppConfig } from "../config/app-config";
import { InjectConfig } from "../config/config.module";
import { OrganizationKeyCounts } from "./organization-key-counts";

/** How long a key answers with its first request's answer. */
export const IDEMPOTENCY_KEY_TTL_HOURS = 24;
/**
 * A running claim older than this, whose request applied nothing, is taken over by a retry: its
 * request died (the process stopped) before committing. If it is in fact still running, its
 * acceptance transaction finds the claim gone and rolls back, so a request is never applied twice.
 */
export const IDEMPOTENCY_LEASE_SECONDS = 60;
const CLEANUP_EVERY_MS = 10 * 60_000;
const CLEANUP_BATCH = 10_000;

export type Claim =
  | { kind: "claimed"; claim: string }
  | { kind: "replay"; status: number; body: string }
  /** Answered (with this status) and applied, but its answer was over IDEMPOTENCY_MAX_ANSWER_BYTES and not kept. */
  | { kind: "not_kept"; status: number; requestId: string | null }
  | { kind: "reused" }
  | { kind: "in_use"; applied: boolean }
  /** A new key, and the organization holds IDEMPOTENCY_MAX_KEYS_PER_ORGANIZATION already: its oldest expires in `retryAfterSeconds`. */
  | { kind: "exhausted"; retryAfterSeconds: number };

/**
 * Idempotency keys in PostgreSQL, per organization: they survive restarts and are shared by every
 * instance. Bounded twice: an answer over IDEMPOTENCY_MAX_ANSWER_BYTES is not kept (the key is, so the
 * request is never applied twice), and an organization holding IDEMPOTENCY_MAX_KEYS_PER_ORGANIZATION
 * keys claims no new one until its oldest expire.
 */
@Injectable()
export class IdempotencyStore implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger("Idempotency");
  private cleanupTimer: NodeJS.Timeout | undefined;
  private readonly maxAnswerBytes: number;
  private readonly keyCounts: OrganizationKeyCounts;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @InjectConfig() config: AppConfig,
  ) {
    const { maxAnswerBytes, maxKeysPerOrganization } = config.idempotency;
    this.maxAnswerBytes = maxAnswerBytes;
    this.keyCounts = new OrganizationKeyCounts(maxKeysPerOrganization, (organizationId) => this.liveKeys(organizationId, maxKeysPerOrganization));
  }

  /** IDEMPOTENCY_MAX_ANSWER_BYTES: the largest answer kept for a replay. */
  get answerLimitBytes(): number {
    return this.maxAnswerBytes;
  }

  onModuleInit(): void {
    this.cleanupTimer = setInterval(() => void this.cleanUp(), CLEANUP_EVERY_MS);
    this.cleanupTimer.unref();
  }

  onModuleDestroy(): void {
    clearInterval(this.cleanupTimer);
  }

  /** Claims the key for this request, or says what the key already holds. */
  async claim(organizationId: string, key: string, fingerprint: string, requestId: string | null): Promise<Claim> {
    const full = await this.keyCounts.isFull(organizationId);
    for (let attempt = 0; attempt < 5; attempt++) {
      const claim = randomUUID();
      // A fresh key (unless the organization is full), an expired one, or an abandoned claim of the same
      // request that applied nothing. ON CONFLICT locks the row first: a claim being marked applied is
      // waited for, never taken over. xmax is 0 for a row the statement inserted.
      const claimed = await this.dataSource.query<{ claim: string; inserted: boolean }[]>(
        `INSERT INTO idempotency_keys (organization_id, key, fingerprint, claim, state, request_id, locked_until, expires_at)
         SELECT $1, $2, $3, $4, 'running', $5, now() + make_interval(secs => $6), now() + make_interval(hours => $7)
          WHERE NOT $8::boolean OR EXISTS (SELECT 1 FROM idempotency_keys WHERE organization_id = $1 AND key = $2)
         ON CONFLICT (organization_id, key) DO UPDATE SET
           fingerprint = EXCLUDED.fingerprint, claim = EXCLUDED.claim, state = 'running', applied = false,
           request_id = EXCLUDED.request_id, response_status = NULL, response_body = NULL, created_at = now(),
           locked_until = EXCLUDED.locked_until, expires_at = EXCLUDED.expires_at
         WHERE idempotency_keys.expires_at <= now()
            OR (idempotency_keys.state = 'running' AND NOT idempotency_keys.applied
                AND idempotency_keys.locked_until <= now() AND idempotency_keys.fingerprint = EXCLUDED.fingerprint)
         RETURNING claim, (xmax = 0) AS inserted`,
        [organizationId, key, fingerprint, claim, requestId, IDEMPOTENCY_LEASE_SECONDS, IDEMPOTENCY_KEY_TTL_HOURS, full],
      );
      if (claimed[0]?.claim === claim) {
        if (claimed[0].inserted) this.keyCounts.added(organizationId);
        return { kind: "claimed", claim };
      }
      const [row] = await this.dataSource.query<
        {
          fingerprint: string;
          state: string;
          applied: boolean;
          request_id: string | null;
          response_status: number | null;
          response_body: string | null;
        }[]
      >(
        `SELECT fingerprint, state, applied, request_id, response_status, response_body FROM idempotency_keys
         WHERE organization_id = $1 AND key = $2 AND expires_at > now()`,
        [organizationId, key],
      );
      if (!row) {
        if (full) return { kind: "exhausted", retryAfterSeconds: await this.secondsUntilOldestExpires(organizationId) };
        continue; // released or expired in between: claim again
      }
      if (row.fingerprint !== fingerprint) return { kind: "reused" };
      if (row.state === "done" && row.response_body === null) return { kind: "not_kept", status: row.response_status!, requestId: row.request_id };
      if (row.state === "done") return { kind: "replay", status: row.response_status!, body: row.response_body! };
      return { kind: "in_use", applied: row.applied };
    }
    throw new Error("idempotency key neither claimed nor found after 5 attempts");
  }

  /** Inside the acceptance transaction: the request's changes and this mark commit together. */
  async markApplied(manager: EntityManager, organizationId: string, key: string, claim: string): Promise<void> {
    const [, affected] = await manager.query<[unknown, number]>(
      `UPDATE idempotency_keys SET applied = true WHERE organization_id = $1 AND key = $2 AND claim = $3 AND state = 'running'`,
      [organizationId, key, claim],
    );
    // Taken over after the lease by a retry that will apply the request itself: this one must not.
    if (affected !== 1) throw new Error("the Idempotency-Key's claim was taken over by a retry; this request is rolled back");
  }

  /**
   * Keeps the answer for replays. A 5xx, or an answer over IDEMPOTENCY_MAX_ANSWER_BYTES, of a request
   * that applied nothing frees the key instead (a retry runs it again, which can apply nothing twice);
   * an answer over the limit of a request that applied something keeps the key without its body.
   */
  async finish(organizationId: string, key: string, claim: string, status: number, body: string): Promise<void> {
    const tooLarge = Buffer.byteLength(body) > this.maxAnswerBytes;
    if (status >= 500 || tooLarge) {
      const [, released] = await this.dataSource.query<[unknown, number]>(
        `DELETE FROM idempotency_keys WHERE organization_id = $1 AND key = $2 AND claim = $3 AND NOT applied`,
        [organizationId, key, claim],
      );
      if (released === 1) return;
    }
    await this.dataSource.query(
      `UPDATE idempotency_keys SET state = 'done', response_status = $4, response_body = $5
       WHERE organization_id = $1 AND key = $2 AND claim = $3`,
      [organizationId, key, claim, status, tooLarge ? null : body],
    );
  }

  /** The organization's live keys, counted up to `limit` (over the organization_id, expires_at index). */
  private async liveKeys(organizationId: string, limit: number): Promise<number> {
    const [row] = await this.dataSource.query<{ keys: number }[]>(
      `SELECT count(*)::int AS keys FROM (SELECT 1 FROM idempotency_keys WHERE organization_id = $1 AND expires_at > now() LIMIT $2) AS live`,
      [organizationId, limit],
    );
    return row.keys;
  }

  private async secondsUntilOldestExpires(organizationId: string): Promise<number> {
    const [row] = await this.dataSource.query<{ seconds: number | null }[]>(
      `SELECT ceil(extract(epoch FROM min(expires_at) - now()))::int AS seconds FROM idempotency_keys WHERE organization_id = $1 AND expires_at > now()`,
      [organizationId],
    );
    return Math.max(1, row.seconds ?? 1);
  }

  /** Deletes expired keys, a batch at a time. */
  async cleanUp(): Promise<number> {
    let deleted = 0;
    try {
      for (;;) {
        const [, count] = await this.dataSource.query<[unknown, number]>(
          `DELETE FROM idempotency_keys WHERE ctid IN (SELECT ctid FROM idempotency_keys WHERE expires_at <= now() LIMIT ${CLEANUP_BATCH})`,
        );
        deleted += count;
        if (count < CLEANUP_BATCH) break;
      }
      if (deleted > 0) this.logger.log(`deleted ${deleted} expired idempotency keys`);
    } catch (error) {
      this.logger.warn(`expired idempotency keys not cleaned up: ${(error as Error).message}`);
    }
    return deleted;
  }
}
