import { Injectable } from "@nestjs/common";
import { InjectDataSource } from "@nestjs/typeorm";
import { DataSource } from "typeorm";

export interface HeldLock {
  release(): Promise<void>;
}

/**
 * Session-level PostgreSQL advisory locks: one flusher and one receipt watcher per signer across
 * every worker process, and a lock that dies with its holder's connection when a worker is killed.
 */
@Injectable()
export class SignerLocks {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  async tryAcquire(name: string): Promise<HeldLock | null> {
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
    return {
      release: async () => {
        try {
          await runner.query("SELECT pg_advisory_unlock(hashtext($1))", [name]);
        } finally {
          await runner.release();
        }
      },
    };
  }
}
