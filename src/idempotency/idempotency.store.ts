import { randomUUID } from "node:crypto";

import { Injectable, Logger, type OnModuleDestroy, type OnModuleInit } from "@nestjs/common";
import { InjectDataSource } from "@nestjs/typeorm";
import { DataSource, type EntityManager } from "typeorm";

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
  { kind: "claimed"; claim: string } | { kind: "replay"; status: number; body: string } | { kind: "reused" } | { kind: "in_use"; applied: boolean };

/** Idempotency keys in PostgreSQL, per organization: they survive restarts and are shared by every instance. */
@Injectable()
export class IdempotencyStore implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger("Idempotency");
  private cleanupTimer: NodeJS.Timeout | undefined;

  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  onModuleInit(): void {
    this.cleanupTimer = setInterval(() => void this.cleanUp(), CLEANUP_EVERY_MS);
    this.cleanupTimer.unref();
  }

  onModuleDestroy(): void {
    clearInterval(this.cleanupTimer);
  }

  /** Claims the key for this request, or says what the key already holds. */
  async claim(organizationId: string, key: string, fingerprint: string, requestId: string | null): Promise<Claim> {
    for (let attempt = 0; attempt < 5; attempt++) {
      const claim = randomUUID();
      // A fresh key, an expired one, or an abandoned claim of the same request that applied nothing.
      // ON CONFLICT locks the row first: a claim being marked applied is waited for, never taken over.
      const claimed = await this.dataSource.query<{ claim: string }[]>(
        `INSERT INTO idempotency_keys (organization_id, key, fingerprint, claim, state, request_id, locked_until, expires_at)
         VALUES ($1, $2, $3, $4, 'running', $5, now() + make_interval(secs => $6), now() + make_interval(hours => $7))
         ON CONFLICT (organization_id, key) DO UPDATE SET
           fingerprint = EXCLUDED.fingerprint, claim = EXCLUDED.claim, state = 'running', applied = false,
           request_id = EXCLUDED.request_id, response_status = NULL, response_body = NULL, created_at = now(),
           locked_until = EXCLUDED.locked_until, expires_at = EXCLUDED.expires_at
         WHERE idempotency_keys.expires_at <= now()
            OR (idempotency_keys.state = 'running' AND NOT idempotency_keys.applied
                AND idempotency_keys.locked_until <= now() AND idempotency_keys.fingerprint = EXCLUDED.fingerprint)
         RETURNING claim`,
        [organizationId, key, fingerprint, claim, requestId, IDEMPOTENCY_LEASE_SECONDS, IDEMPOTENCY_KEY_TTL_HOURS],
      );
      if (claimed[0]?.claim === claim) return { kind: "claimed", claim };
      const [row] = await this.dataSource.query<
        { fingerprint: string; state: string; applied: boolean; response_status: number | null; response_body: string | null }[]
      >(
        `SELECT fingerprint, state, applied, response_status, response_body FROM idempotency_keys
         WHERE organization_id = $1 AND key = $2 AND expires_at > now()`,
        [organizationId, key],
      );
      if (!row) continue; // released or expired in between: claim again
      if (row.fingerprint !== fingerprint) return { kind: "reused" };
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

  /** Keeps the answer for replays; a 5xx of a request that applied nothing frees the key instead. */
  async finish(organizationId: string, key: string, claim: string, status: number, body: string): Promise<void> {
    if (status >= 500) {
      const [, released] = await this.dataSource.query<[unknown, number]>(
        `DELETE FROM idempotency_keys WHERE organization_id = $1 AND key = $2 AND claim = $3 AND NOT applied`,
        [organizationId, key, claim],
      );
      if (released === 1) return;
    }
    await this.dataSource.query(
      `UPDATE idempotency_keys SET state = 'done', response_status = $4, response_body = $5
       WHERE organization_id = $1 AND key = $2 AND claim = $3`,
      [organizationId, key, claim, status, body],
    );
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
