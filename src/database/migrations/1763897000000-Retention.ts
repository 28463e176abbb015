import type { MigrationInterface, QueryRunner } from "typeorm";

/**
 * What retention needs (src/retention): a delivered callback past CALLBACK_RETENTION_DAYS keeps its
 * row (status, identity, delivery summary) but not its body or its attempt log, and `body_pruned_at`
 * says when those went; a final transaction past RAW_TX_RETENTION_HOURS keeps everything but its
 * signed bytes. Each partial index holds only the rows still to prune, so it stays small (about
 * CALLBACK_RETENTION_DAYS of deliveries, a day of transactions) and each batch is an index range.
 *
 * The column changes are catalog-only (no rewrite, no scan). The index builds read the tables and
 * block their writes meanwhile; they cannot be CONCURRENTLY here, as such a build waits for every
 * open transaction, the other instances waiting for the migration lock included. On a large ledger
 * an operator builds them CONCURRENTLY before upgrading (docs/operators/operations.md#retention),
 * and IF NOT EXISTS leaves them as they are.
 */
export class Retention1763897000000 implements MigrationInterface {
  name = "Retention1763897000000";

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE callbacks ADD COLUMN IF NOT EXISTS body_pruned_at timestamptz`);
    await queryRunner.query(
      `CREATE INDEX IF NOT EXISTS callbacks_prunable_idx ON callbacks (delivered_at) WHERE status = 'delivered' AND body_pruned_at IS NULL`,
    );
    await queryRunner.query(`ALTER TABLE chain_transactions ALTER COLUMN raw_tx DROP NOT NULL`);
    await queryRunner.query(
      `CREATE INDEX IF NOT EXISTS chain_transactions_raw_final_idx ON chain_transactions (updated_at)
        WHERE raw_tx IS NOT NULL AND status IN ('confirmed', 'reverted', 'replaced')`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX IF EXISTS chain_transactions_raw_final_idx`);
    // Bytes cleared are gone: those rows keep an empty string, which no code path sends (they are final).
    await queryRunner.query(`UPDATE chain_transactions SET raw_tx = '' WHERE raw_tx IS NULL`);
    await queryRunner.query(`ALTER TABLE chain_transactions ALTER COLUMN raw_tx SET NOT NULL`);
    await queryRunner.query(`DROP INDEX IF EXISTS callbacks_prunable_idx`);
    await queryRunner.query(`ALTER TABLE callbacks DROP COLUMN IF EXISTS body_pruned_at`);
  }
}
