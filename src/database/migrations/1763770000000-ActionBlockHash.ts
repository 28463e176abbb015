import type { MigrationInterface, QueryRunner } from "typeorm";

export class ActionBlockHash1763770000000 implements MigrationInterface {
  name = "ActionBlockHash1763770000000";

  async up(queryRunner: QueryRunner): Promise<void> {
    // The hash of the block that confirmed an action: with blockNumber and txHash, a receipt anyone can check against the chain.
    await queryRunner.query(`ALTER TABLE chain_actions ADD COLUMN block_hash text`);
    await queryRunner.query(`
      UPDATE chain_actions AS a SET block_hash = t.block_hash
        FROM chain_transactions AS t
       WHERE a.status = 'confirmed' AND a.block_hash IS NULL AND t.tx_hash = a.tx_hash AND t.status = 'confirmed'`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE chain_actions DROP COLUMN block_hash`);
  }
}
