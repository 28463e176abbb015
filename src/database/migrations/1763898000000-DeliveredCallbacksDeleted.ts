import type { MigrationInterface, QueryRunner } from "typeorm";

/**
 * Retention deletes a delivered callback past CALLBACK_RETENTION_DAYS instead of keeping its row
 * without the body: the kept rows and their eight index entries were about 480 bytes a ticket,
 * forever, for a listing nobody reads after a month (the action keeps the outcome). The callbacks
 * pruned so far go now (they are past retention by definition), with `body_pruned_at`; the index of
 * what is due is rebuilt without that column. On a large outbox an operator builds it CONCURRENTLY
 * beforehand (docs/operators/operations.md#retention) and IF NOT EXISTS leaves it as it is.
 */
export class DeliveredCallbacksDeleted1763898000000 implements MigrationInterface {
  name = "DeliveredCallbacksDeleted1763898000000";

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DELETE FROM callbacks WHERE body_pruned_at IS NOT NULL`);
    await queryRunner.query(`CREATE INDEX IF NOT EXISTS callbacks_delivered_idx ON callbacks (delivered_at) WHERE status = 'delivered'`);
    await queryRunner.query(`DROP INDEX IF EXISTS callbacks_prunable_idx`);
    await queryRunner.query(`ALTER TABLE callbacks DROP COLUMN IF EXISTS body_pruned_at`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE callbacks ADD COLUMN IF NOT EXISTS body_pruned_at timestamptz`);
    await queryRunner.query(
      `CREATE INDEX IF NOT EXISTS callbacks_prunable_idx ON callbacks (delivered_at) WHERE status = 'delivered' AND body_pruned_at IS NULL`,
    );
    await queryRunner.query(`DROP INDEX IF EXISTS callbacks_delivered_idx`);
  }
}
