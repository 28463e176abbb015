import type { MigrationInterface, QueryRunner } from "typeorm";

export class IdempotencyKeysPerOrganization1763886000000 implements MigrationInterface {
  name = "IdempotencyKeysPerOrganization1763886000000";

  async up(queryRunner: QueryRunner): Promise<void> {
    // An organization's live keys are counted (up to IDEMPOTENCY_MAX_KEYS_PER_ORGANIZATION) from the
    // index alone, and its oldest key's expiry read from it. A kept key whose answer was too large to
    // keep has state 'done' and no response_body.
    await queryRunner.query(`CREATE INDEX idempotency_keys_organization_expires_at_idx ON idempotency_keys (organization_id, expires_at)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX idempotency_keys_organization_expires_at_idx`);
  }
}
