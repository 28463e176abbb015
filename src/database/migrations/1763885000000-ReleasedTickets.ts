import type { MigrationInterface, QueryRunner } from "typeorm";

/**
 * A ticket whose sale the registry refused is released: its row stays, with the history of its
 * actions, but the ticket no longer exists for the integrator and its ticketId may be sold again. So
 * ticketIds are unique among the tickets not released.
 */
export class ReleasedTickets1763885000000 implements MigrationInterface {
  name = "ReleasedTickets1763885000000";

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE tickets ADD COLUMN released_at timestamptz`);
    await queryRunner.query(`ALTER TABLE tickets DROP CONSTRAINT tickets_organization_ticket_id_key`);
    await queryRunner.query(`CREATE UNIQUE INDEX tickets_organization_ticket_id_key ON tickets (organization_id, ticket_id) WHERE released_at IS NULL`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    // A ticketId sold again after its release would break the constraint: the released rows go.
    await queryRunner.query(`DELETE FROM tickets WHERE released_at IS NOT NULL`);
    await queryRunner.query(`DROP INDEX tickets_organization_ticket_id_key`);
    await queryRunner.query(`ALTER TABLE tickets ADD CONSTRAINT tickets_organization_ticket_id_key UNIQUE (organization_id, ticket_id)`);
    await queryRunner.query(`ALTER TABLE tickets DROP COLUMN released_at`);
  }
}
