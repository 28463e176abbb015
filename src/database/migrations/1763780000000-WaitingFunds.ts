import type { MigrationInterface, QueryRunner } from "typeorm";

export class WaitingFunds1763780000000 implements MigrationInterface {
  name = "WaitingFunds1763780000000";

  async up(queryRunner: QueryRunner): Promise<void> {
    // waiting_funds: queued for a signer that cannot pay for its next transaction now (short of funds,
    // or fees above MAX_FEE_PER_GAS_GWEI); the writer moves them back to waiting_broadcast by itself.
    await queryRunner.query(`ALTER TABLE chain_actions DROP CONSTRAINT chain_actions_status_check`);
    await queryRunner.query(`
      ALTER TABLE chain_actions ADD CONSTRAINT chain_actions_status_check
        CHECK (status IN ('waiting_broadcast', 'waiting_funds', 'pending', 'confirmed', 'error', 'no_broadcast_required'))`);
    await queryRunner.query(`CREATE INDEX chain_actions_waiting_funds_idx ON chain_actions (seq) WHERE status = 'waiting_funds'`);
    // dropped: an attempt that will never be mined (its nonce was taken by another transaction, it was
    // re-planned smaller, or withdrawn unsent while its signer was short of funds); its actions went back in line.
    await queryRunner.query(`ALTER TABLE chain_transactions DROP CONSTRAINT chain_transactions_status_check`);
    await queryRunner.query(`
      ALTER TABLE chain_transactions ADD CONSTRAINT chain_transactions_status_check
        CHECK (status IN ('signed', 'broadcast', 'mined', 'confirmed', 'reverted', 'replaced', 'dropped'))`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`UPDATE chain_actions SET status = 'waiting_broadcast' WHERE status = 'waiting_funds'`);
    await queryRunner.query(`DROP INDEX chain_actions_waiting_funds_idx`);
    await queryRunner.query(`ALTER TABLE chain_actions DROP CONSTRAINT chain_actions_status_check`);
    await queryRunner.query(`
      ALTER TABLE chain_actions ADD CONSTRAINT chain_actions_status_check
        CHECK (status IN ('waiting_broadcast', 'pending', 'confirmed', 'error', 'no_broadcast_required'))`);
    await queryRunner.query(`DELETE FROM chain_transactions WHERE status = 'dropped'`);
    await queryRunner.query(`ALTER TABLE chain_transactions DROP CONSTRAINT chain_transactions_status_check`);
    await queryRunner.query(`
      ALTER TABLE chain_transactions ADD CONSTRAINT chain_transactions_status_check
        CHECK (status IN ('signed', 'broadcast', 'mined', 'confirmed', 'reverted', 'replaced'))`);
  }
}
