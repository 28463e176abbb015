import type { MigrationInterface, QueryRunner } from "typeorm";

/**
 * The service follows its tokens after the claim: a wallet's transfer of a claimed token becomes an
 * action of its ticket (kind `transferred`, confirmed when found, its from, to and log in the payload),
 * with its callback and its place in the change log like any other; tickets know which block and log
 * set their holder, so that a batch confirmed late never overwrites a later transfer; and where the
 * registry's logs have been read up to is kept per registry.
 */
export class TokenTransfers1763840000000 implements MigrationInterface {
  name = "TokenTransfers1763840000000";

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE chain_actions DROP CONSTRAINT chain_actions_kind_check`);
    await queryRunner.query(`
      ALTER TABLE chain_actions ADD CONSTRAINT chain_actions_kind_check
        CHECK (kind IN ('newEvent', 'updateEvent', 'sold', 'resold', 'scanned', 'invalidated', 'updateTicket', 'claimed', 'transferred'))`);
    // A transfer is recorded once however often its logs are read (a restart, a rescan after a reorg):
    // its key names the transaction, the token, both addresses and which such move of the transaction it was.
    await queryRunner.query(`CREATE UNIQUE INDEX chain_actions_transfer_key ON chain_actions ((payload->>'key')) WHERE kind = 'transferred'`);
    await queryRunner.query(`ALTER TABLE tickets ADD COLUMN holder_block bigint, ADD COLUMN holder_log_index integer`);
    await queryRunner.query(`CREATE INDEX tickets_holder_idx ON tickets (organization_id, holder, token_id) WHERE holder IS NOT NULL`);
    // Whether any ticket was ever claimed, asked by the transfer follower at every pass: answered from this index, not a scan.
    await queryRunner.query(`CREATE INDEX tickets_claimed_idx ON tickets (token_id) WHERE claimed`);
    await queryRunner.query(`
      CREATE TABLE registry_log_cursors (
        chain_id bigint NOT NULL,
        registry_address text NOT NULL,
        next_block bigint NOT NULL,
        last_block_hash text,
        updated_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (chain_id, registry_address)
      )`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE registry_log_cursors`);
    await queryRunner.query(`DROP INDEX tickets_claimed_idx`);
    await queryRunner.query(`DROP INDEX tickets_holder_idx`);
    await queryRunner.query(`ALTER TABLE tickets DROP COLUMN holder_block, DROP COLUMN holder_log_index`);
    await queryRunner.query(`DROP INDEX chain_actions_transfer_key`);
    await queryRunner.query(`DELETE FROM chain_actions WHERE kind = 'transferred'`);
    await queryRunner.query(`ALTER TABLE chain_actions DROP CONSTRAINT chain_actions_kind_check`);
    await queryRunner.query(`
      ALTER TABLE chain_actions ADD CONSTRAINT chain_actions_kind_check
        CHECK (kind IN ('newEvent', 'updateEvent', 'sold', 'resold', 'scanned', 'invalidated', 'updateTicket', 'claimed'))`);
  }
}
