import type { MigrationInterface, QueryRunner } from "typeorm";

/**
 * What each API key may do (`scope`: every key made before keeps `full`), the IP ranges it may be
 * used from (`allowed_ips`, NULL for anywhere; `cidr`, so the database refuses a malformed range too)
 * and when it was last used (`last_used_at`, to the minute: see AuthService).
 */
export class KeyScopes1763890000000 implements MigrationInterface {
  name = "KeyScopes1763890000000";

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      ALTER TABLE api_keys
        ADD COLUMN scope text NOT NULL DEFAULT 'full' CONSTRAINT api_keys_scope_check CHECK (scope IN ('full', 'scan', 'read')),
        ADD COLUMN allowed_ips cidr[] CONSTRAINT api_keys_allowed_ips_check CHECK (cardinality(allowed_ips) > 0),
        ADD COLUMN last_used_at timestamptz`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE api_keys DROP COLUMN last_used_at, DROP COLUMN allowed_ips, DROP COLUMN scope`);
  }
}
