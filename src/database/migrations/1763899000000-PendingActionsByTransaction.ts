import type { MigrationInterface, QueryRunner } from "typeorm";

/**
 * The writer finds an action by its transaction (signer, nonce, batch position) only while it is
 * pending: every such statement says `status = 'pending'`. The index kept every action ever sent,
 * about 60 bytes a ticket for good (170 with the dead entries of its updates); holding only the
 * pending ones, it is the size of what is in flight. On a large ledger an operator builds it
 * CONCURRENTLY beforehand (docs/operators/operations.md#retention) and IF NOT EXISTS leaves it.
 */
export class PendingActionsByTransaction1763899000000 implements MigrationInterface {
  name = "PendingActionsByTransaction1763899000000";

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE INDEX IF NOT EXISTS chain_actions_pending_in_transaction_idx ON chain_actions (tx_signer, tx_nonce, batch_index) WHERE status = 'pending'`,
    );
    await queryRunner.query(`DROP INDEX IF EXISTS chain_actions_in_transaction_idx`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE INDEX IF NOT EXISTS chain_actions_in_transaction_idx ON chain_actions (tx_signer, tx_nonce, batch_index) WHERE tx_nonce IS NOT NULL`,
    );
    await queryRunner.query(`DROP INDEX IF EXISTS chain_actions_pending_in_transaction_idx`);
  }
}
