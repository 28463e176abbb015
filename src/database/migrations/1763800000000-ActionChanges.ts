import type { MigrationInterface, QueryRunner } from "typeorm";

/** The columns of chain_actions a change log entry copies: the state GET /api/v1/actions/{promise} shows. */
const STATE = "status, tx_hash, block_number, block_hash, error_code, error_message";

export class ActionChanges1763800000000 implements MigrationInterface {
  name = "ActionChanges1763800000000";

  async up(queryRunner: QueryRunner): Promise<void> {
    // The ordered change log behind GET /api/v1/actions/events (Server-Sent Events): one row per change
    // of an action's state, written by triggers in the transaction that makes the change,
    // whichever process (API or worker) makes it. `tx` is that transaction's id: readers take only rows
    // of transactions older than every transaction still running (pg_snapshot_xmin), in (tx, id) order,
    // so a later reader never finds a row before the position it has already passed (Last-Event-ID).
    await queryRunner.query(`
      CREATE TABLE chain_action_changes (
        id bigserial PRIMARY KEY,
        tx xid8 NOT NULL DEFAULT pg_current_xact_id(),
        action_id uuid NOT NULL,
        organization_id uuid NOT NULL,
        event_ref uuid NOT NULL,
        ticket_ref uuid,
        status text NOT NULL,
        tx_hash text,
        block_number bigint,
        block_hash text,
        error_code text,
        error_message text,
        changed_at timestamptz NOT NULL DEFAULT now()
      )`);
    // One index per filter of the stream, each in reading order: a stream reads only its own entries after its position.
    await queryRunner.query(`CREATE INDEX chain_action_changes_event_idx ON chain_action_changes (event_ref, tx, id)`);
    await queryRunner.query(`CREATE INDEX chain_action_changes_ticket_idx ON chain_action_changes (ticket_ref, tx, id) WHERE ticket_ref IS NOT NULL`);
    await queryRunner.query(`CREATE INDEX chain_action_changes_action_idx ON chain_action_changes (action_id, tx, id)`);
    // Pruning by age (the log keeps 7 days): a BRIN index costs next to nothing on insert.
    await queryRunner.query(`CREATE INDEX chain_action_changes_changed_at_idx ON chain_action_changes USING brin (changed_at)`);
    // Statement-level triggers with transition tables: one INSERT ... SELECT per statement, so a batch
    // confirmation costs one extra statement, not one per row. Acceptance is not a change: a new action
    // is logged only when it is final at once (no_broadcast_required), so a bulk acceptance (COPY of
    // 5000 actions waiting_broadcast) writes nothing to the log and keeps its speed.
    await queryRunner.query(`
      CREATE FUNCTION chain_action_changes_log() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP = 'INSERT' THEN
          INSERT INTO chain_action_changes (action_id, organization_id, event_ref, ticket_ref, ${STATE})
          SELECT n.id, n.organization_id, n.event_ref, n.ticket_ref, ${prefixed("n")} FROM new_rows n
           WHERE n.status <> 'waiting_broadcast' ORDER BY n.seq;
        ELSE
          INSERT INTO chain_action_changes (action_id, organization_id, event_ref, ticket_ref, ${STATE})
          SELECT n.id, n.organization_id, n.event_ref, n.ticket_ref, ${prefixed("n")} FROM new_rows n JOIN old_rows o ON o.id = n.id
           WHERE (${prefixed("n")}) IS DISTINCT FROM (${prefixed("o")})
           ORDER BY n.seq;
        END IF;
        IF FOUND THEN
          PERFORM pg_notify('chain_action_changes', '');
        END IF;
        RETURN NULL;
      END $$`);
    await queryRunner.query(`
      CREATE TRIGGER chain_action_changes_on_insert AFTER INSERT ON chain_actions
        REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION chain_action_changes_log()`);
    await queryRunner.query(`
      CREATE TRIGGER chain_action_changes_on_update AFTER UPDATE ON chain_actions
        REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION chain_action_changes_log()`);
    // Actions of the last 7 days start the log with their current state.
    await queryRunner.query(`
      INSERT INTO chain_action_changes (action_id, organization_id, event_ref, ticket_ref, ${STATE}, changed_at)
      SELECT id, organization_id, event_ref, ticket_ref, ${STATE}, updated_at FROM chain_actions
       WHERE updated_at > now() - interval '7 days' ORDER BY updated_at, seq`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TRIGGER chain_action_changes_on_update ON chain_actions`);
    await queryRunner.query(`DROP TRIGGER chain_action_changes_on_insert ON chain_actions`);
    await queryRunner.query(`DROP FUNCTION chain_action_changes_log()`);
    await queryRunner.query(`DROP TABLE chain_action_changes`);
  }
}

function prefixed(alias: string): string {
  return STATE.split(", ")
    .map((column) => `${alias}.${column}`)
    .join(", ");
}
