import type { MigrationInterface, QueryRunner } from "typeorm";

/**
 * An organization's webhook endpoints, beside each event's callbackUrl: every callback is written once
 * per receiver that takes it (`webhook_ref`, NULL for the event's callbackUrl), each copy with its own
 * delivery state and log. A notice about the callbacks themselves (`endpoint_disabled`,
 * `callback_exhausted`, a `test`) goes to endpoints only and has no action or event. A receiver that
 * failed every attempt since `failing_since` for long enough is disabled (`enabled` false on an
 * endpoint, `callback_disabled_at` on an event): its callbacks are kept, not attempted.
 */
export class WebhookEndpoints1763892000000 implements MigrationInterface {
  name = "WebhookEndpoints1763892000000";

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE webhook_endpoints (
        id uuid PRIMARY KEY,
        organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
        url text NOT NULL,
        actions text[] CONSTRAINT webhook_endpoints_actions_check CHECK (cardinality(actions) > 0),
        description text NOT NULL DEFAULT '',
        enabled boolean NOT NULL DEFAULT true,
        disabled_reason text CONSTRAINT webhook_endpoints_disabled_reason_check CHECK (disabled_reason IN ('request', 'failing')),
        disabled_at timestamptz,
        failing_since timestamptz,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT webhook_endpoints_disabled_check CHECK (enabled = (disabled_reason IS NULL) AND enabled = (disabled_at IS NULL))
      )`);
    await queryRunner.query(`CREATE INDEX webhook_endpoints_organization_idx ON webhook_endpoints (organization_id, created_at, id)`);
    await queryRunner.query(`ALTER TABLE events ADD COLUMN callback_failing_since timestamptz, ADD COLUMN callback_disabled_at timestamptz`);
    await queryRunner.query(`
      ALTER TABLE callbacks
        ADD COLUMN webhook_ref uuid REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
        ALTER COLUMN action_id DROP NOT NULL,
        ALTER COLUMN event_ref DROP NOT NULL,
        ADD CONSTRAINT callbacks_subject_check CHECK (action_id IS NOT NULL AND event_ref IS NOT NULL OR action_id IS NULL AND webhook_ref IS NOT NULL)`);
    // One copy of an action's callback per receiver: the callbackUrl's (NULL) and each endpoint's.
    await queryRunner.query(`ALTER TABLE callbacks DROP CONSTRAINT callbacks_action_id_key`);
    await queryRunner.query(
      `CREATE UNIQUE INDEX callbacks_action_receiver_key ON callbacks (action_id, webhook_ref) NULLS NOT DISTINCT WHERE action_id IS NOT NULL`,
    );
    await queryRunner.query(`CREATE INDEX callbacks_webhook_idx ON callbacks (webhook_ref, seq) WHERE webhook_ref IS NOT NULL`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DELETE FROM callbacks WHERE webhook_ref IS NOT NULL`);
    await queryRunner.query(`DROP INDEX callbacks_webhook_idx`);
    await queryRunner.query(`DROP INDEX callbacks_action_receiver_key`);
    await queryRunner.query(`ALTER TABLE callbacks ADD CONSTRAINT callbacks_action_id_key UNIQUE (action_id)`);
    await queryRunner.query(
      `ALTER TABLE callbacks DROP CONSTRAINT callbacks_subject_check, ALTER COLUMN event_ref SET NOT NULL, ALTER COLUMN action_id SET NOT NULL, DROP COLUMN webhook_ref`,
    );
    await queryRunner.query(`ALTER TABLE events DROP COLUMN callback_disabled_at, DROP COLUMN callback_failing_since`);
    await queryRunner.query(`DROP TABLE webhook_endpoints`);
  }
}
