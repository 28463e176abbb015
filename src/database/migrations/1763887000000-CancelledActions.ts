import type { MigrationInterface, QueryRunner } from "typeorm";

/**
 * cancelled: an action the integrator withdrew before it was signed; final, nothing of it on chain.
 * A cancelled registration releases its event as a refused sale releases its ticket: the row keeps
 * its history, and its eventId may be registered again (eventIds unique among events not released).
 */
export class CancelledActions1763887000000 implements MigrationInterface {
  name = "CancelledActions1763887000000";

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE chain_actions DROP CONSTRAINT chain_actions_status_check`);
    await queryRunner.query(`
      ALTER TABLE chain_actions ADD CONSTRAINT chain_actions_status_check
        CHECK (status IN ('waiting_broadcast', 'waiting_funds', 'pending', 'confirmed', 'error', 'no_broadcast_required', 'cancelled'))`);
    await queryRunner.query(`ALTER TABLE events ADD COLUMN released_at timestamptz`);
    await queryRunner.query(`ALTER TABLE events DROP CONSTRAINT events_organization_event_id_key`);
    await queryRunner.query(`CREATE UNIQUE INDEX events_organization_event_id_key ON events (organization_id, event_id) WHERE released_at IS NULL`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    // An eventId registered again after its release would break the constraint: the released rows go.
    await queryRunner.query(`DELETE FROM events WHERE released_at IS NOT NULL`);
    await queryRunner.query(`DROP INDEX events_organization_event_id_key`);
    await queryRunner.query(`ALTER TABLE events ADD CONSTRAINT events_organization_event_id_key UNIQUE (organization_id, event_id)`);
    await queryRunner.query(`ALTER TABLE events DROP COLUMN released_at`);
    await queryRunner.query(`UPDATE chain_actions SET status = 'error', error_code = 'cancelled' WHERE status = 'cancelled'`);
    await queryRunner.query(`ALTER TABLE chain_actions DROP CONSTRAINT chain_actions_status_check`);
    await queryRunner.query(`
      ALTER TABLE chain_actions ADD CONSTRAINT chain_actions_status_check
        CHECK (status IN ('waiting_broadcast', 'waiting_funds', 'pending', 'confirmed', 'error', 'no_broadcast_required'))`);
  }
}
