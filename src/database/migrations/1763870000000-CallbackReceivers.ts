import type { MigrationInterface, QueryRunner } from "typeorm";

/**
 * Each callback keeps its receiver (`scheme://authority` of its event's callbackUrl, in lower case),
 * indexed with its due order among the pending ones: a claim walks each receiver with room on its
 * own, so the backlog of a full receiver (one that accepts and never answers, or whose name lookups
 * hang) is never read. The expression is the ledger's receiverSql as it stands at this migration.
 */
export class CallbackReceivers1763870000000 implements MigrationInterface {
  name = "CallbackReceivers1763870000000";

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE callbacks ADD COLUMN receiver text`);
    await queryRunner.query(
      `UPDATE callbacks c SET receiver = lower(COALESCE(substring(e.callback_url from '^[A-Za-z][A-Za-z0-9+.-]*://[^/?#]*'), e.callback_url))
         FROM events e WHERE e.id = c.event_ref`,
    );
    await queryRunner.query(`ALTER TABLE callbacks ALTER COLUMN receiver SET NOT NULL`);
    await queryRunner.query(`CREATE INDEX callbacks_receiver_due_idx ON callbacks (receiver, next_attempt_at, seq) WHERE status = 'pending'`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX callbacks_receiver_due_idx`);
    await queryRunner.query(`ALTER TABLE callbacks DROP COLUMN receiver`);
  }
}
