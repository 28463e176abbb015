import type { MigrationInterface, QueryRunner } from "typeorm";

/**
 * An event or a ticket whose registration or sale the registry refused is released: its row stays,
 * with the history of its actions, but it no longer exists for the integrator, and its id may be
 * registered or sold again. So the integrator's ids are unique among the rows not released.
 */
export class ReleasedSubjects1763885000000 implements MigrationInterface {
  name = "ReleasedSubjects1763885000000";

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE tickets ADD COLUMN released_at timestamptz`);
    await queryRunner.query(`ALTER TABLE tickets DROP CONSTRAINT tickets_organization_ticket_id_key`);
    await queryRunner.query(`CREATE UNIQUE INDEX tickets_organization_ticket_id_key ON tickets (organization_id, ticket_id) WHERE released_at IS NULL`);
    await queryRunner.query(`ALTER TABLE events ADD COLUMN released_at timestamptz`);
    await queryRunner.query(`ALTER TABLE events DROP CONSTRAINT events_organization_event_id_key`);
    await queryRunner.query(`CREATE UNIQUE INDEX events_organization_event_id_key ON events (organization_id, event_id) WHERE released_at IS NULL`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DELETE FROM tickets WHERE released_at IS NOT NULL`);
    await queryRunner.query(`DROP INDEX tickets_organization_ticket_id_key`);
    await queryRunner.query(`ALTER TABLE tickets ADD CONSTRAINT tickets_organization_ticket_id_key UNIQUE (organization_id, ticket_id)`);
    await queryRunner.query(`ALTER TABLE tickets DROP COLUMN released_at`);
    await queryRunner.query(`DELETE FROM events WHERE released_at IS NOT NULL`);
    await queryRunner.query(`DROP INDEX events_organization_event_id_key`);
    await queryRunner.query(`ALTER TABLE events ADD CONSTRAINT events_organization_event_id_key UNIQUE (organization_id, event_id)`);
    await queryRunner.query(`ALTER TABLE events DROP COLUMN released_at`);
  }
}
