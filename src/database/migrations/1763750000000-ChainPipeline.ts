import type { MigrationInterface, QueryRunner } from "typeorm";

export class ChainPipeline1763750000000 implements MigrationInterface {
  name = "ChainPipeline1763750000000";

  async up(queryRunner: QueryRunner): Promise<void> {
    // Nonces live here, never in memory: a restarted or second worker continues where the last stopped.
    await queryRunner.query(`
      CREATE TABLE chain_signers (
        address text PRIMARY KEY,
        chain_id bigint NOT NULL,
        next_nonce bigint NOT NULL,
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    // One row per signed attempt; fee bumps add attempts with the same nonce and the same actions.
    await queryRunner.query(`
      CREATE TABLE chain_transactions (
        id uuid PRIMARY KEY,
        signer text NOT NULL REFERENCES chain_signers (address),
        chain_id bigint NOT NULL,
        nonce bigint NOT NULL,
        attempt integer NOT NULL,
        tx_hash text NOT NULL UNIQUE,
        raw_tx text NOT NULL,
        gas_limit bigint NOT NULL,
        max_fee_per_gas numeric(78, 0) NOT NULL,
        max_priority_fee_per_gas numeric(78, 0) NOT NULL,
        item_count integer NOT NULL,
        status text NOT NULL CHECK (status IN ('signed', 'broadcast', 'mined', 'confirmed', 'reverted', 'replaced')),
        broadcast_at timestamptz,
        block_number bigint,
        block_hash text,
        gas_used bigint,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT chain_transactions_attempt_key UNIQUE (signer, nonce, attempt)
      )`);
    await queryRunner.query(`CREATE INDEX chain_transactions_open_idx ON chain_transactions (signer, nonce) WHERE status IN ('signed', 'broadcast', 'mined')`);
    // shard_key (the event's registry index) sends every action of an event through one signer.
    await queryRunner.query(`
      ALTER TABLE chain_actions
        ADD COLUMN shard_key bigint NOT NULL DEFAULT 0,
        ADD COLUMN tx_signer text,
        ADD COLUMN tx_nonce bigint,
        ADD COLUMN batch_index integer,
        ADD COLUMN reverted_attempts integer NOT NULL DEFAULT 0`);
    await queryRunner.query(`CREATE INDEX chain_actions_in_transaction_idx ON chain_actions (tx_signer, tx_nonce, batch_index) WHERE tx_nonce IS NOT NULL`);
    await queryRunner.query(`ALTER TABLE tickets ADD COLUMN holder text`);
    // The outbox: one callback per finalized action, written with its status change; delivered by the callbacks module.
    await queryRunner.query(`
      CREATE TABLE callbacks (
        id uuid PRIMARY KEY,
        action_id uuid NOT NULL UNIQUE,
        organization_id uuid NOT NULL,
        event_ref uuid NOT NULL,
        ticket_ref uuid,
        payload jsonb NOT NULL,
        status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'delivered', 'failed')),
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await queryRunner.query(`CREATE INDEX callbacks_pending_idx ON callbacks (created_at) WHERE status = 'pending'`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE callbacks`);
    await queryRunner.query(`ALTER TABLE tickets DROP COLUMN holder`);
    await queryRunner.query(`DROP INDEX chain_actions_in_transaction_idx`);
    await queryRunner.query(
      `ALTER TABLE chain_actions DROP COLUMN shard_key, DROP COLUMN tx_signer, DROP COLUMN tx_nonce, DROP COLUMN batch_index, DROP COLUMN reverted_attempts`,
    );
    await queryRunner.query(`DROP TABLE chain_transactions`);
    await queryRunner.query(`DROP TABLE chain_signers`);
  }
}
