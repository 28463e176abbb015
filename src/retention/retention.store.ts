import { Injectable } from "@nestjs/common";
import { InjectDataSource } from "@nestjs/typeorm";
import { DataSource } from "typeorm";

/** What one batch of callback retention deleted. */
export interface DeletedCallbacks {
  callbacks: number;
  attempts: number;
}

/**
 * The statements of retention: each takes at most `limit` rows from a partial index that holds only
 * rows still to prune (see the Retention migration), so a batch is one short index range whatever
 * the tables' size. Rows another transaction holds (a redelivery, a lease) are skipped, never waited
 * for: the next run takes them.
 */
@Injectable()
export class RetentionStore {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /**
   * Callbacks delivered more than `days` ago are deleted with their attempt log: what they told the
   * receiver stays in the action (status, txHash, block, error), and nothing reads a delivered
   * callback but the callbacks API and a redelivery. Failed and pending callbacks are not touched.
   */
  async deleteDeliveredCallbacks(days: number, limit: number): Promise<DeletedCallbacks> {
    const [row] = await this.dataSource.query<{ callbacks: number; attempts: number }[]>(
      `WITH batch AS (
         SELECT id FROM callbacks
          WHERE status = 'delivered' AND delivered_at < now() - make_interval(days => $1)
          ORDER BY delivered_at LIMIT $2
          FOR UPDATE SKIP LOCKED),
       attempts AS (DELETE FROM callback_attempts a USING batch b WHERE a.callback_id = b.id RETURNING 1),
       deleted AS (DELETE FROM callbacks c USING batch b WHERE c.id = b.id RETURNING 1)
       SELECT (SELECT count(*) FROM deleted)::int AS callbacks, (SELECT count(*) FROM attempts)::int AS attempts`,
      [days, limit],
    );
    return row;
  }

  /**
   * Final transactions (confirmed, reverted, replaced) that became so more than `hours` ago lose
   * their signed bytes; hash, nonce, status, block and gas stay. Open attempts are never touched:
   * their bytes are what the writer sends and replaces.
   */
  async clearRawTransactions(hours: number, limit: number): Promise<number> {
    const [, cleared] = await this.dataSource.query<[unknown, number]>(
      `UPDATE chain_transactions t SET raw_tx = NULL
         FROM (SELECT id FROM chain_transactions
                WHERE raw_tx IS NOT NULL AND status IN ('confirmed', 'reverted', 'replaced') AND updated_at < now() - make_interval(hours => $1)
                ORDER BY updated_at LIMIT $2
                FOR UPDATE SKIP LOCKED) batch
        WHERE t.id = batch.id`,
      [hours, limit],
    );
    return cleared;
  }
}
