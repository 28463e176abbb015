import { DataSource } from "typeorm";

import { dataSourceOptions } from "../src/database/data-source-options";
import { runMigrations } from "../src/database/prepare-database";
import { RETENTION_BATCH } from "../src/retention/retention.service";
import { RetentionStore } from "../src/retention/retention.store";
import { createBenchDatabase } from "./stack/bench-database";

/**
 * What retention saves on disk, measured: `node -r @swc-node/register bench/retention-sizes.ts`.
 * Each of ROUNDS rounds adds CALLBACKS delivered callbacks (a sale's body as the service writes it,
 * one attempt each) and the final 1,500-sale transactions that carried them, all past their
 * retention; VACUUM then marks free what retention pruned, as autovacuum would. `grownByFill` is
 * what a round added (bytes per ticket): the first round's is the cost without retention, later
 * rounds land partly in the space the round before freed. `onDiskAfterPrune` is what stays per
 * ticket of all rounds once pruned: its growth from round to round is the lasting cost of a ticket
 * past its retention. Sizes are pg_total_relation_size (table, TOAST and indexes).
 */
const CALLBACKS = Number(process.env.CALLBACKS ?? 100_000);
const TICKETS_PER_TRANSACTION = 1_500;
/** One final transaction per 1,500 of the callbacks' sales, as a full batch carries. */
const TRANSACTIONS = Math.round(CALLBACKS / TICKETS_PER_TRANSACTION);
/** Bytes of a signed batch per sale (73 bytes of calldata each, measured on the writer's batches). */
const BYTES_PER_SALE = 73;
const ROUNDS = Number(process.env.ROUNDS ?? 4);
const TABLES = ["callbacks", "callback_attempts", "chain_transactions"] as const;

type Sizes = Record<(typeof TABLES)[number], number>;

async function sizes(dataSource: DataSource): Promise<Sizes> {
  const [row] = await dataSource.query<Sizes[]>(`SELECT ${TABLES.map((table) => `pg_total_relation_size('${table}')::float8 AS ${table}`).join(", ")}`);
  return row;
}

async function fill(dataSource: DataSource, organizationId: string, eventRef: string, round: number): Promise<void> {
  await dataSource.query(
    `INSERT INTO callbacks (id, action_id, organization_id, event_ref, ticket_ref, payload, status, receiver, order_key, attempts, last_status_code, delivered_at, created_at)
     SELECT gen_random_uuid(), gen_random_uuid(), $1, $2, gen_random_uuid(),
            jsonb_build_object('txHash', '0x' || encode(sha256(i::text::bytea), 'hex'), 'transactionType', 'ticket', 'action', 'sold',
                               'eventId', 'event-2026-arena-' || $3, 'ticketId', 'ticket-' || $3 || '-' || i, 'actionPromise', gen_random_uuid(),
                               'status', 'confirmed', 'error', null, 'blockNumber', 1234567 + i / 1500, 'blockHash', '0x' || encode(sha256((i / 1500)::text::bytea), 'hex'),
                               'tokenId', (18446744073709551616 + i)::text, 'chainId', 80002, 'registryAddress', '0x5FbDB2315678afecb367f032d93F642f64180aa3'),
            'delivered', 'https://integrator.example.com', $2, 1, 204, now() - interval '40 days', now() - interval '40 days'
       FROM generate_series(1, $4) AS i`,
    [organizationId, eventRef, round, CALLBACKS],
  );
  await dataSource.query(
    `INSERT INTO callback_attempts (id, callback_id, started_at, duration_ms, url, status_code)
     SELECT gen_random_uuid(), id, delivered_at, 35, 'https://integrator.example.com/callbacks/ticket-registry', 204 FROM callbacks WHERE body_pruned_at IS NULL`,
  );
  const rawBytes = TICKETS_PER_TRANSACTION * BYTES_PER_SALE;
  await dataSource.query(
    `INSERT INTO chain_transactions (id, signer, chain_id, nonce, attempt, tx_hash, raw_tx, gas_limit, max_fee_per_gas, max_priority_fee_per_gas, item_count,
                                     status, block_number, gas_used, effective_gas_price, updated_at)
     SELECT gen_random_uuid(), '0x00000000000000000000000000000000000000a1', 80002, $1 * 100000 + i, 1, '0x' || encode(sha256(($1 * 100000 + i)::text::bytea), 'hex'),
            -- Calldata as the writer signs it: mostly varying ids and hashes, which compress little.
            '0x' || (SELECT string_agg(encode(sha256((i * 100000 + j)::text::bytea), 'hex'), '') FROM generate_series(1, ceil($2 / 32.0)::int) AS j),
            30000000, 1, 1, $3, 'confirmed', 1000 + i, 25000000, 1, now() - interval '2 days'
       FROM generate_series(1, $4) AS i`,
    [round, rawBytes, TICKETS_PER_TRANSACTION, TRANSACTIONS],
  );
}

async function pruneAll(store: RetentionStore): Promise<void> {
  while ((await store.deleteDeliveredCallbacks(30, RETENTION_BATCH)).callbacks === RETENTION_BATCH);
  while ((await store.clearRawTransactions(24, RETENTION_BATCH)) === RETENTION_BATCH);
}

const perTicket = (bytes: number) => Math.round(bytes / CALLBACKS);

async function main(): Promise<void> {
  const database = await createBenchDatabase("bench");
  await runMigrations(database.url);
  const dataSource = await new DataSource(dataSourceOptions(database.url)).initialize();
  try {
    const [{ id: organizationId }] = await dataSource.query<{ id: string }[]>(
      `INSERT INTO organizations (ticketeer_id, name) VALUES ('sizes', 'sizes') RETURNING id`,
    );
    const [{ id: eventRef }] = await dataSource.query<{ id: string }[]>(
      `INSERT INTO events (id, organization_id, event_id, currency, callback_url) VALUES (gen_random_uuid(), $1, 'event-sizes', 'EUR', 'https://integrator.example.com/cb') RETURNING id`,
      [organizationId],
    );
    await dataSource.query(`INSERT INTO chain_signers (address, chain_id, next_nonce) VALUES ('0x00000000000000000000000000000000000000a1', 80002, 0)`);
    // Without retention every round adds a full round; with it, a round past the first lands in the
    // space the round before it freed, and what stays is the pruned rows' residue.
    const empty = await sizes(dataSource);
    let last = empty;
    const rows: Record<string, number | string>[] = [];
    let pruneMs = 0;
    for (let round = 1; round <= ROUNDS; round++) {
      await fill(dataSource, organizationId, eventRef, round);
      await dataSource.query(`VACUUM ANALYZE`);
      const filled = await sizes(dataSource);
      const started = Date.now();
      await pruneAll(new RetentionStore(dataSource));
      pruneMs += Date.now() - started;
      await dataSource.query(`VACUUM ANALYZE`);
      const pruned = await sizes(dataSource);
      for (const table of TABLES) {
        rows.push({ round, table, grownByFill: perTicket(filled[table] - last[table]), onDiskAfterPrune: perTicket(pruned[table] - empty[table]) / round });
      }
      last = pruned;
    }
    console.table(rows);
    console.log(
      `${ROUNDS} rounds of ${CALLBACKS} callbacks and ${TRANSACTIONS} transactions; pruning took ${pruneMs} ms in all (batches of ${RETENTION_BATCH})`,
    );
  } finally {
    await dataSource.destroy();
    await database.drop();
  }
}

void main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
