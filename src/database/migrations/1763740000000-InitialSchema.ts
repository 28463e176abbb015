import type { MigrationInterface, QueryRunner } from "typeorm";

export class InitialSchema1763740000000 implements MigrationInterface {
  name = "InitialSchema1763740000000";

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE organizations (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        ticketeer_id text NOT NULL UNIQUE,
        name text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await queryRunner.query(`
      CREATE TABLE api_keys (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
        prefix text NOT NULL UNIQUE,
        secret_hash text NOT NULL,
        label text NOT NULL DEFAULT '',
        created_at timestamptz NOT NULL DEFAULT now(),
        revoked_at timestamptz
      )`);
    await queryRunner.query(`CREATE INDEX api_keys_organization_idx ON api_keys (organization_id)`);
    // Registry event indexes are handed out by the service so that a batch can name an event it registers.
    await queryRunner.query(`CREATE SEQUENCE registry_event_index_seq AS bigint START 1`);
    await queryRunner.query(`
      CREATE TABLE events (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        organization_id uuid NOT NULL REFERENCES organizations (id),
        event_id text NOT NULL,
        event_index bigint NOT NULL UNIQUE DEFAULT nextval('registry_event_index_seq'),
        name text NOT NULL DEFAULT '',
        ticketeer_name text NOT NULL DEFAULT '',
        currency text NOT NULL,
        shop_url text NOT NULL DEFAULT '',
        image_url text NOT NULL DEFAULT '',
        latitude double precision NOT NULL DEFAULT 0,
        longitude double precision NOT NULL DEFAULT 0,
        start_time numeric(20, 0) NOT NULL DEFAULT 0,
        end_time numeric(20, 0) NOT NULL DEFAULT 0,
        callback_url text NOT NULL,
        tickets_sold bigint NOT NULL DEFAULT 0,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT events_organization_event_id_key UNIQUE (organization_id, event_id)
      )`);
    await queryRunner.query(`ALTER SEQUENCE registry_event_index_seq OWNED BY events.event_index`);
    // Tickets are written only by the acceptance that holds their event's row lock; a foreign key
    // checked row by row would cost a 5000-ticket request a tenth of its time.
    await queryRunner.query(`
      CREATE TABLE tickets (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        organization_id uuid NOT NULL,
        event_ref uuid NOT NULL,
        ticket_id text NOT NULL,
        serial bigint NOT NULL,
        token_id numeric(39, 0) NOT NULL UNIQUE,
        price text NOT NULL,
        uri text NOT NULL DEFAULT '',
        order_time numeric(20, 0) NOT NULL,
        checked_in boolean NOT NULL DEFAULT false,
        invalidated boolean NOT NULL DEFAULT false,
        claimed boolean NOT NULL DEFAULT false,
        claimed_to text,
        resales integer NOT NULL DEFAULT 0,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT tickets_organization_ticket_id_key UNIQUE (organization_id, ticket_id),
        CONSTRAINT tickets_checked_in_or_invalidated CHECK (NOT (checked_in AND invalidated)),
        CONSTRAINT tickets_claimed_after_check_in CHECK (NOT claimed OR checked_in)
      )`);
    // The ledger is append-only and written in the transaction that creates what it refers to; it
    // carries no foreign keys because checking them row by row halves the speed of a bulk acceptance.
    await queryRunner.query(`
      CREATE TABLE chain_actions (
        id uuid PRIMARY KEY,
        seq bigserial NOT NULL UNIQUE,
        organization_id uuid NOT NULL,
        kind text NOT NULL CHECK (kind IN ('newEvent', 'updateEvent', 'sold', 'resold', 'scanned', 'invalidated', 'updateTicket', 'claimed')),
        requested_as text NOT NULL,
        event_ref uuid NOT NULL,
        ticket_ref uuid,
        status text NOT NULL CHECK (status IN ('waiting_broadcast', 'pending', 'confirmed', 'error', 'no_broadcast_required')),
        payload jsonb,
        tx_hash text,
        block_number bigint,
        error_code text,
        error_message text,
        request_id text,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await queryRunner.query(`CREATE INDEX chain_actions_waiting_idx ON chain_actions (seq) WHERE status = 'waiting_broadcast'`);
    // Ticket actions are found by ticket; only an event's own actions are found by event.
    await queryRunner.query(`CREATE INDEX chain_actions_event_idx ON chain_actions (event_ref, seq) WHERE ticket_ref IS NULL`);
    await queryRunner.query(`CREATE INDEX chain_actions_ticket_idx ON chain_actions (ticket_ref, seq)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE chain_actions`);
    await queryRunner.query(`DROP TABLE tickets`);
    await queryRunner.query(`DROP TABLE events`);
    await queryRunner.query(`DROP TABLE api_keys`);
    await queryRunner.query(`DROP TABLE organizations`);
  }
}
