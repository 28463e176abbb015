import type { EventEmitter } from "node:events";

import { Injectable, Logger } from "@nestjs/common";
import { InjectDataSource } from "@nestjs/typeorm";
import { DataSource, type QueryRunner } from "typeorm";

import { isDatabaseUnreachable } from "../../common/errors/database-unreachable";

export interface HeldLock {
  release(): Promise<void>;
}

/**
 * Session-level PostgreSQL advisory locks: one flusher and one receipt watcher per signer across
 * every worker process, and a lock that dies with its holder's connection when a worker is killed.
 *
 * The same death comes to a live holder when its connection is cut (the database restarted or
 * unreachable for a while): PostgreSQL lets the lock go while the holder works on. This process
 * keeps its own account of the names it holds, so that it never hands a name out again before its
 * holder has let go (a flush of a signer beside another flush of it); and a connection lost under a
 * lock is logged instead of being an error event nobody listens to (pg's client would throw it).
 */
@Injectable()
export class SignerLocks {
  private readonly logger = new Logger(SignerLocks.name);
  private readonly held = new Set<string>();

  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  async tryAcquire(name: string): Promise<HeldLock | null> {
    if (this.held.has(name)) return null;
    this.held.add(name);
    let lock: HeldLock | null = null;
    try {
      lock = await this.lockInDatabase(name);
      return lock;
    } finally {
      if (!lock) this.held.delete(name);
    }
  }

  private async lockInDatabase(name: string): Promise<HeldLock | null> {
    const runner = this.dataSource.createQueryRunner();
    await runner.connect();
    try {
      const [row] = (await runner.query("SELECT pg_try_advisory_lock(hashtext($1)) AS locked", [name])) as { locked: boolean }[];
      if (!row.locked) {
        await runner.release();
        return null;
      }
    } catch (error) {
      await runner.release();
      throw error;
    }
    const connection = connectionOf(runner);
    const lost = (error: Error) =>
      this.logger.warn(`${name}: the lock went with its database connection (${error.message}); its holder finishes before it is taken again here`);
    connection?.on("error", lost);
    return {
      release: async () => {
        try {
          // A connection that is gone took the lock with it (TypeORM has released its runner then): nothing is left to unlock.
          if (!runner.isReleased) await runner.query("SELECT pg_advisory_unlock(hashtext($1))", [name]);
        } catch (error) {
          if (!isDatabaseUnreachable(error)) throw error;
        } finally {
          connection?.removeListener("error", lost);
          this.held.delete(name);
          if (!runner.isReleased) await runner.release();
        }
      },
    };
  }
}

/** The driver's connection under a query runner (node-postgres' client). */
function connectionOf(runner: QueryRunner): EventEmitter | undefined {
  return (runner as unknown as { databaseConnection?: EventEmitter }).databaseConnection;
}
