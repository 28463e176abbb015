import type { MigrationInterface, QueryRunner } from "typeorm";

export class CallbackDelivery1763760000000 implements MigrationInterface {
  name = "CallbackDelivery1763760000000";

  async up(queryRunner: QueryRunner): Promise<void> {
    // Signing secrets must be readable to sign; a rotated-out one signs alongside the new one until it expires.
    await queryRunner.query(`
      CREATE TABLE webhook_secrets (
        id uuid PRIMARY KEY,
        organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
        secret text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        expires_at timestamptz
      )`);
    await queryRunner.query(`CREATE INDEX webhook_secrets_organization_idx ON webhook_secrets (organization_id)`);
    // order_key is the ticket (or the event, for event callbacks): a later callback waits for an earlier one's first attempt.
    await queryRunner.query(`
      ALTER TABLE callbacks
        ADD COLUMN seq bigserial NOT NULL,
        ADD COLUMN order_key uuid,
        ADD COLUMN attempts integer NOT NULL DEFAULT 0,
        ADD COLUMN next_attempt_at timestamptz NOT NULL DEFAULT now(),
        ADD COLUMN leased_until timestamptz,
        ADD COLUMN last_status_code integer,
        ADD COLUMN last_error text,
        ADD COLUMN delivered_at timestamptz`);
    await queryRunner.query(`UPDATE callbacks SET order_key = COALESCE(ticket_ref, event_ref)`);
    await queryRunner.query(`ALTER TABLE callbacks ALTER COLUMN order_key SET NOT NULL`);
    await queryRunner.query(`DROP INDEX callbacks_pending_idx`);
    await queryRunner.query(`CREATE INDEX callbacks_due_idx ON callbacks (next_attempt_at, seq) WHERE status = 'pending'`);
    await queryRunner.query(`CREATE INDEX callbacks_order_idx ON callbacks (order_key, seq) WHERE status = 'pending' AND attempts = 0`);
    await queryRunner.query(`CREATE INDEX callbacks_listing_idx ON callbacks (organization_id, event_ref, seq)`);
    await queryRunner.query(`
      CREATE TABLE callback_attempts (
        id uuid PRIMARY KEY,
        callback_id uuid NOT NULL REFERENCES callbacks (id) ON DELETE CASCADE,
        started_at timestamptz NOT NULL,
        duration_ms integer NOT NULL,
        url text NOT NULL,
        status_code integer,
        error text
      )`);
    await queryRunner.query(`CREATE INDEX callback_attempts_callback_idx ON callback_attempts (callback_id, started_at)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE callback_attempts`);
    await queryRunner.query(`DROP INDEX callbacks_listing_idx`);
    await queryRunner.query(`DROP INDEX callbacks_order_idx`);
    await queryRunner.query(`DROP INDEX callbacks_due_idx`);
    await queryRunner.query(`CREATE INDEX callbacks_pending_idx ON callbacks (created_at) WHERE status = 'pending'`);
    await queryRunner.query(
      `ALTER TABLE callbacks DROP COLUMN seq, DROP COLUMN order_key, DROP COLUMN attempts, DROP COLUMN next_attempt_at, DROP COLUMN leased_until, DROP COLUMN last_status_code, DROP COLUMN last_error, DROP COLUMN delivered_at`,
    );
    await queryRunner.query(`DROP TABLE webhook_secrets`);
  }
}
