import type { MigrationInterface, QueryRunner } from "typeorm";

/**
 * A ledger is bound to one registry: the chain id, registry address and deployment block it first
 * wrote to, one row at most. A worker configured with another registry writes nothing.
 */
export class LedgerBinding1763850000000 implements MigrationInterface {
  name = "LedgerBinding1763850000000";

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE ledger_binding (
        id smallint PRIMARY KEY DEFAULT 1 CHECK (id = 1),
        chain_id bigint NOT NULL,
        registry_address text NOT NULL,
        from_block bigint NOT NULL,
        bound_at timestamptz NOT NULL DEFAULT now()
      )`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE ledger_binding`);
  }
}
