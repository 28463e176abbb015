import type { MigrationInterface, QueryRunner } from "typeorm";

/**
 * A signer whose nonces the chain took with transactions the ledger does not know (its key used
 * elsewhere, a ledger restored from an older backup) stops signing until an operator reconciles it:
 * when it stopped and what was seen (the ledger's and the chain's nonces, the hashes involved) are
 * kept with the signer, so that a restarted worker does not forget and sign again.
 */
export class SignerStops1763860000000 implements MigrationInterface {
  name = "SignerStops1763860000000";

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE chain_signers ADD COLUMN stopped_at timestamptz, ADD COLUMN stop_detail jsonb`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE chain_signers DROP COLUMN stopped_at, DROP COLUMN stop_detail`);
  }
}
