import type { MigrationInterface, QueryRunner } from "typeorm";

/**
 * cancelledEvent: an event cancelled in one action, one write on chain whatever its tickets. The
 * event keeps when its cancellation was accepted (`cancelled_at`); its tickets keep their own state
 * and read as cancelled through it, so a withdrawn or refused cancellation puts back one row.
 */
export class CancelledEvents1763893000000 implements MigrationInterface {
  name = "CancelledEvents1763893000000";

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE chain_actions DROP CONSTRAINT chain_actions_kind_check`);
    await queryRunner.query(`
      ALTER TABLE chain_actions ADD CONSTRAINT chain_actions_kind_check
        CHECK (kind IN ('newEvent', 'updateEvent', 'sold', 'resold', 'scanned', 'invalidated', 'updateTicket', 'claimed', 'transferred', 'cancelledEvent'))`);
    await queryRunner.query(`ALTER TABLE events ADD COLUMN cancelled_at timestamptz`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE events DROP COLUMN cancelled_at`);
    await queryRunner.query(`DELETE FROM chain_actions WHERE kind = 'cancelledEvent'`);
    await queryRunner.query(`ALTER TABLE chain_actions DROP CONSTRAINT chain_actions_kind_check`);
    await queryRunner.query(`
      ALTER TABLE chain_actions ADD CONSTRAINT chain_actions_kind_check
        CHECK (kind IN ('newEvent', 'updateEvent', 'sold', 'resold', 'scanned', 'invalidated', 'updateTicket', 'claimed', 'transferred'))`);
  }
}
