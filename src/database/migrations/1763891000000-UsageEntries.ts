import type { MigrationInterface, QueryRunner } from "typeorm";

/** The statuses an action ends on chain with: what the statement counts as confirmed and failed. */
const ON_CHAIN_FINAL = `('confirmed', 'error')`;

/**
 * The usage statement's ledger (GET /api/v1/usage, `usage report`): usage_entries, rows appended
 * only, never updated, each counting for one organization, event and action kind at one time:
 * - accepted: written by each acceptance with its rows (ActionRecorder: one row per event and kind);
 * - confirmed and failed: by a statement trigger on chain_actions for every UPDATE that makes actions
 *   final on chain or takes them back out of it, whichever part of the writer runs it, now or later;
 * - gas and fee_wei with transaction_id: by the finalization of each receipt, the transaction's gas
 *   split among the items it carried by their planned gas (chain_actions.planned_gas, set when the
 *   batch is signed) and its fee as each share × the receipt's effective gas price
 *   (chain_transactions.effective_gas_price).
 * A statement sums a time range of one organization's rows (usage_entries_organization_idx), or of
 * every organization's (usage_entries_recorded_brin: the rows are appended in time order). The rows
 * outlive the ledger's: a statement never reads chain_actions.
 */
export class UsageEntries1763891000000 implements MigrationInterface {
  name = "UsageEntries1763891000000";

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE chain_actions ADD COLUMN planned_gas integer`);
    await queryRunner.query(`ALTER TABLE chain_transactions ADD COLUMN effective_gas_price numeric(78, 0)`);
    await queryRunner.query(`
      CREATE TABLE usage_entries (
        organization_id uuid NOT NULL,
        recorded_at timestamptz NOT NULL DEFAULT now(),
        event_ref uuid NOT NULL,
        kind text NOT NULL,
        accepted integer NOT NULL DEFAULT 0,
        confirmed integer NOT NULL DEFAULT 0,
        failed integer NOT NULL DEFAULT 0,
        transaction_id uuid,
        gas bigint NOT NULL DEFAULT 0,
        fee_wei numeric(78, 0) NOT NULL DEFAULT 0
      )`);
    await queryRunner.query(`CREATE INDEX usage_entries_organization_idx ON usage_entries (organization_id, recorded_at)`);
    await queryRunner.query(`CREATE INDEX usage_entries_recorded_brin ON usage_entries USING brin (recorded_at)`);
    await queryRunner.query(`
      CREATE FUNCTION usage_entries_of_outcomes() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        INSERT INTO usage_entries (organization_id, event_ref, kind, confirmed, failed)
        SELECT n.organization_id, n.event_ref, n.kind,
               sum((n.status = 'confirmed')::int - (o.status = 'confirmed')::int),
               sum((n.status = 'error')::int - (o.status = 'error')::int)
          FROM old_actions o JOIN new_actions n ON n.id = o.id
         WHERE o.status IS DISTINCT FROM n.status AND (o.status IN ${ON_CHAIN_FINAL} OR n.status IN ${ON_CHAIN_FINAL})
           AND n.kind <> 'transferred'
         GROUP BY n.organization_id, n.event_ref, n.kind;
        RETURN NULL;
      END $$`);
    await queryRunner.query(`
      CREATE TRIGGER chain_actions_usage_outcomes AFTER UPDATE ON chain_actions
        REFERENCING OLD TABLE AS old_actions NEW TABLE AS new_actions FOR EACH STATEMENT EXECUTE FUNCTION usage_entries_of_outcomes()`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TRIGGER chain_actions_usage_outcomes ON chain_actions`);
    await queryRunner.query(`DROP FUNCTION usage_entries_of_outcomes()`);
    await queryRunner.query(`DROP TABLE usage_entries`);
    await queryRunner.query(`ALTER TABLE chain_transactions DROP COLUMN effective_gas_price`);
    await queryRunner.query(`ALTER TABLE chain_actions DROP COLUMN planned_gas`);
  }
}
