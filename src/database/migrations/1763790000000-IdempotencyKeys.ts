import type { MigrationInterface, QueryRunner } from "typeorm";

export class IdempotencyKeys1763790000000 implements MigrationInterface {
  name = "IdempotencyKeys1763790000000";

  async up(queryRunner: QueryRunner): Promise<void> {
    // One row per organization and Idempotency-Key: claimed by the first request ('running', with the
    // claim it holds), then its answer ('done'). `applied` is set inside the acceptance transaction, so a
    // request that died before answering is known to have changed nothing (or not) when a retry comes.
    // The answer is kept as text, exactly as sent (jsonb would reorder its keys).
    await queryRunner.query(`
      CREATE TABLE idempotency_keys (
        organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
        key text NOT NULL,
        fingerprint text NOT NULL,
        claim uuid NOT NULL,
        state text NOT NULL CHECK (state IN ('running', 'done')),
        applied boolean NOT NULL DEFAULT false,
        request_id text,
        response_status integer,
        response_body text,
        created_at timestamptz NOT NULL DEFAULT now(),
        locked_until timestamptz NOT NULL,
        expires_at timestamptz NOT NULL,
        PRIMARY KEY (organization_id, key)
      )`);
    await queryRunner.query(`CREATE INDEX idempotency_keys_expires_at_idx ON idempotency_keys (expires_at)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE idempotency_keys`);
  }
}
