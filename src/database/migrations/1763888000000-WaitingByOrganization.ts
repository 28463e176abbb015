import type { MigrationInterface, QueryRunner } from "typeorm";

/**
 * The writer takes each organization's waiting actions in turn (see the chain writer's fair share):
 * the organizations with waiting actions are found by a skip scan of this index, and each one's
 * oldest waiting actions by a range of it.
 */
export class WaitingByOrganization1763888000000 implements MigrationInterface {
  name = "WaitingByOrganization1763888000000";

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE INDEX chain_actions_waiting_organization_idx ON chain_actions (organization_id, seq) WHERE status = 'waiting_broadcast'`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX chain_actions_waiting_organization_idx`);
  }
}
