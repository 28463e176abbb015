import type { MigrationInterface, QueryRunner } from "typeorm";

/**
 * The one-time challenges of holder proofs: each nonce issued, to which organization, for which token
 * or event, on which chain and registry, until when (`expiry`, unix seconds, as the signed message
 * says), and when a proof consumed it. Rows past their expiry are deleted as new ones are written
 * (the expiry index), so the table holds about two minutes of challenges.
 */
export class HolderProofChallenges1763895000000 implements MigrationInterface {
  name = "HolderProofChallenges1763895000000";

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE holder_proof_challenges (
        nonce bytea PRIMARY KEY CONSTRAINT holder_proof_challenges_nonce_check CHECK (octet_length(nonce) = 32),
        organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
        chain_id numeric(78, 0) NOT NULL,
        registry_address text NOT NULL,
        token_id numeric(39, 0),
        event_ref uuid NOT NULL,
        event_index bigint,
        expiry bigint NOT NULL,
        used_at timestamptz,
        holder text,
        created_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT holder_proof_challenges_subject_check CHECK ((token_id IS NULL) <> (event_index IS NULL))
      )`);
    await queryRunner.query(`CREATE INDEX holder_proof_challenges_expiry_idx ON holder_proof_challenges (expiry)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE holder_proof_challenges`);
  }
}
