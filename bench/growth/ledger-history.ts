import { Counter } from "prom-client";
import { DataSource } from "typeorm";

import type { AppConfig } from "../../src/config/app-config";

import { dataSourceOptions } from "../../src/database/data-source-options";
import { ActionChangesStore } from "../../src/ledger/live/action-changes.store";
import { RetentionService } from "../../src/retention/retention.service";
import { RetentionStore } from "../../src/retention/retention.store";

/**
 * A ledger's history, made in bulk from rows the service wrote: the only way to reach 10 M tickets
 * in minutes. `ageLedger` moves the final rows' clocks back past every retention period and runs the
 * service's own retention statements on them, so the rows are what a year-old ledger keeps.
 * `cloneHistory` then copies those rows (events, tickets, actions) as many times as asked, each copy
 * a new event per event, with only what identifies a row changed:
 *
 * - ids: new time-ordered ids (UUID version 7, the service's kind), ascending in the order the
 *   service wrote the originals, so each index grows at its end as the service's writes make it;
 * - events: `event_id` prefixed `h<copy>-`, a new `event_index` from the registry's sequence;
 * - tickets: `ticket_id` prefixed `h<copy>-`, `token_id` from the new event index and the same serial;
 * - actions: their event and ticket, `seq` (the acceptance order, in the originals' order), and in
 *   the payload the `tokenId` and `ticketHash` that follow from the new ids.
 *
 * Everything else (status, prices, holders, transactions, blocks, timestamps, metadata) is the
 * original's, byte for byte; `test/chain/ledger-history.e2e-spec.ts` checks it column by column.
 * Actions keep their transactions' hashes and nonces: transactions are the signer's own sequence and
 * are not copied (at one per 1,500 sales they are a few bytes per ticket).
 */
export interface HistoryClone {
  /** Tickets in the ledger after the copies. */
  tickets: number;
  copies: number;
  milliseconds: number;
}

/** The clocks a year-old ledger's final rows show: past CALLBACK_RETENTION_DAYS, the change log's 7 days and RAW_TX_RETENTION_HOURS. */
const AGED_BY = "40 days";

/** What the service's retention removed: delivered callbacks, final transactions' bytes, change-log entries. */
export interface Pruned {
  callbacks: number;
  rawTransactions: number;
  changes: number;
}

/** Moves the final rows' clocks back by AGED_BY and runs the service's retention on them, then VACUUM; what it pruned. */
export async function ageLedger(databaseUrl: string): Promise<Pruned> {
  await ageClocks(databaseUrl);
  const pruned = await runRetention(databaseUrl);
  await withDataSource(databaseUrl, async (dataSource) => {
    await dataSource.query(`VACUUM ANALYZE`);
    await dataSource.query(`CHECKPOINT`);
  });
  return pruned;
}

/** Moves the final rows' clocks back by AGED_BY, past every retention period. */
export function ageClocks(databaseUrl: string): Promise<void> {
  return withDataSource(databaseUrl, async (dataSource) => {
    await dataSource.query(`UPDATE callbacks SET delivered_at = delivered_at - interval '${AGED_BY}' WHERE status = 'delivered'`);
    await dataSource.query(
      `UPDATE chain_transactions SET updated_at = updated_at - interval '${AGED_BY}' WHERE status IN ('confirmed', 'reverted', 'replaced')`,
    );
    await dataSource.query(`UPDATE chain_action_changes SET changed_at = changed_at - interval '${AGED_BY}'`);
  });
}

/**
 * One run of the service's retention as a worker runs it (RetentionService: bounded batches, a pause
 * between them), at the default periods, and the api's change-log pruning.
 */
export function runRetention(databaseUrl: string): Promise<Pruned> {
  return withDataSource(databaseUrl, async (dataSource) => {
    const config = { retention: { callbackDays: 30, rawTransactionHours: 24 } } as AppConfig;
    const counter = new Counter({ name: "retention_pruned_total", help: "pruned", labelNames: ["kind"], registers: [] });
    const run = await new RetentionService(new RetentionStore(dataSource), config, counter).runOnce();
    const changes = await new ActionChangesStore(dataSource).prune();
    return { callbacks: run.callbacks, rawTransactions: run.rawTransactions, changes };
  });
}

async function withDataSource<T>(databaseUrl: string, use: (dataSource: DataSource) => Promise<T>): Promise<T> {
  const dataSource = await new DataSource(dataSourceOptions(databaseUrl)).initialize();
  try {
    return await use(dataSource);
  } finally {
    await dataSource.destroy();
  }
}

/**
 * A time-ordered UUID (version 7) for the `g`-th id of the fill: $1 is the fill's start in Unix
 * milliseconds, 4,096 ids a millisecond in counter order, so a fill of 10 M ids runs 2.4 s ahead.
 */
const NEW_ID = (g: string) =>
  `(lpad(to_hex($1::bigint + (${g}) / 4096), 12, '0') || '7' || lpad(to_hex((${g}) % 4096), 3, '0') || '8' || substr(md5((${g})::text), 1, 15))::uuid`;

type Query = (sql: string, parameters?: unknown[]) => Promise<{ n: string }[]>;

/** Copies the template's events, tickets and actions once more as copy `copy`; ids from the `offset`-th on. Returns the ids used. */
async function cloneOnce(query: Query, startMs: number, copy: number, offset: number): Promise<number> {
  await query(`TRUNCATE history_events, history_tickets`);
  await query(
    `INSERT INTO history_events (src, dst, event_index)
     SELECT id, ${NEW_ID("$2 + row_number() OVER (ORDER BY event_index)")}, nextval('registry_event_index_seq')
       FROM events WHERE id IN (SELECT id FROM history_template_events) ORDER BY event_index`,
    [startMs, offset],
  );
  const events = Number((await query(`SELECT count(*) AS n FROM history_events`))[0].n);
  await query(
    `INSERT INTO events (id, organization_id, event_id, event_index, name, ticketeer_name, currency, shop_url, image_url, latitude, longitude,
                         start_time, end_time, callback_url, tickets_sold, created_at, updated_at, last_serial, released_at, callback_failing_since,
                         callback_disabled_at, cancelled_at, description, ticket_image_url)
     SELECT m.dst, e.organization_id, 'h' || $1 || '-' || e.event_id, m.event_index, e.name, e.ticketeer_name, e.currency, e.shop_url, e.image_url,
            e.latitude, e.longitude, e.start_time, e.end_time, e.callback_url, e.tickets_sold, e.created_at, e.updated_at, e.last_serial, e.released_at,
            e.callback_failing_since, e.callback_disabled_at, e.cancelled_at, e.description, e.ticket_image_url
       FROM events e JOIN history_events m ON m.src = e.id ORDER BY m.event_index`,
    [copy],
  );
  await query(
    `INSERT INTO history_tickets (src, dst, event_index)
     SELECT t.id, ${NEW_ID("$2 + row_number() OVER (ORDER BY t.id)")}, m.event_index
       FROM tickets t JOIN history_events m ON m.src = t.event_ref
      WHERE t.id IN (SELECT id FROM history_template_tickets)`,
    [startMs, offset + events],
  );
  const tickets = Number((await query(`SELECT count(*) AS n FROM history_tickets`))[0].n);
  await query(
    `INSERT INTO tickets (id, organization_id, event_ref, ticket_id, serial, token_id, price, uri, order_time, checked_in, invalidated, claimed,
                          claimed_to, resales, created_at, updated_at, holder, holder_block, holder_log_index, released_at, name, description,
                          animation_url, attributes)
     SELECT m.dst, t.organization_id, me.dst, 'h' || $1 || '-' || t.ticket_id, t.serial, m.event_index * 18446744073709551616 + t.serial, t.price, t.uri,
            t.order_time, t.checked_in, t.invalidated, t.claimed, t.claimed_to, t.resales, t.created_at, t.updated_at, t.holder, t.holder_block,
            t.holder_log_index, t.released_at, t.name, t.description, t.animation_url, t.attributes
       FROM tickets t JOIN history_tickets m ON m.src = t.id JOIN history_events me ON me.src = t.event_ref ORDER BY m.dst`,
    [copy],
  );
  const [{ n: actions }] = await query(
    `WITH copied AS (
       INSERT INTO chain_actions (id, organization_id, kind, requested_as, event_ref, ticket_ref, status, payload, tx_hash, block_number, error_code,
                                  error_message, request_id, created_at, updated_at, shard_key, tx_signer, tx_nonce, batch_index, reverted_attempts,
                                  block_hash, planned_gas)
       SELECT ${NEW_ID("$2 + row_number() OVER (ORDER BY a.seq)")}, a.organization_id, a.kind, a.requested_as, me.dst, mt.dst, a.status,
              CASE WHEN a.payload IS NULL THEN NULL ELSE a.payload
                || CASE WHEN a.payload ? 'tokenId' THEN jsonb_build_object('tokenId', (t.token_id)::text) ELSE '{}' END
                || CASE WHEN a.payload ? 'eventIndex' THEN jsonb_build_object('eventIndex', me.event_index::text) ELSE '{}' END
                || CASE WHEN a.payload ? 'ticketHash' THEN jsonb_build_object('ticketHash', '0x' || encode(sha256(convert_to(t.ticket_id, 'UTF8')), 'hex')) ELSE '{}' END
              END,
              a.tx_hash, a.block_number, a.error_code, a.error_message, a.request_id, a.created_at, a.updated_at, a.shard_key, a.tx_signer, a.tx_nonce,
              a.batch_index, a.reverted_attempts, a.block_hash, a.planned_gas
         FROM chain_actions a JOIN history_events me ON me.src = a.event_ref
         LEFT JOIN history_tickets mt ON mt.src = a.ticket_ref LEFT JOIN tickets t ON t.id = mt.dst
        WHERE a.id IN (SELECT id FROM history_template_actions)
        ORDER BY a.seq
       RETURNING 1)
     SELECT count(*) AS n FROM copied`,
    [startMs, offset + events + tickets],
  );
  return events + tickets + Number(actions);
}

/** Events made by cloneHistory: their event_id starts `h<copy>-`. */
const CLONED_EVENT = `'^h[0-9]+-'`;

/**
 * Copies the ledger's own events (not earlier copies), their tickets and actions, as they are now,
 * until it holds `targetTickets` tickets (whole copies, at least one).
 */
export async function cloneHistory(databaseUrl: string, targetTickets: number): Promise<HistoryClone> {
  const started = Date.now();
  const dataSource = await new DataSource(dataSourceOptions(databaseUrl)).initialize();
  const runner = dataSource.createQueryRunner();
  try {
    await runner.connect();
    const query: Query = (sql, parameters) => runner.query(sql, parameters);
    // Temporary tables: on this connection only, never in the service's tables' sizes.
    await query(`CREATE TEMP TABLE history_template_events AS SELECT id FROM events WHERE event_id !~ ${CLONED_EVENT}`);
    await query(`CREATE TEMP TABLE history_template_tickets AS SELECT id FROM tickets WHERE event_ref IN (SELECT id FROM history_template_events)`);
    await query(`CREATE TEMP TABLE history_template_actions AS SELECT id FROM chain_actions WHERE event_ref IN (SELECT id FROM history_template_events)`);
    await query(`CREATE TEMP TABLE history_events (src uuid PRIMARY KEY, dst uuid, event_index bigint)`);
    await query(`CREATE TEMP TABLE history_tickets (src uuid PRIMARY KEY, dst uuid, event_index bigint)`);
    const template = Number((await query(`SELECT count(*) AS n FROM history_template_tickets`))[0].n);
    if (template === 0) throw new Error("the ledger holds no tickets to copy");
    const [{ n: done }] = await query(`SELECT coalesce(max(substring(event_id from '^h([0-9]+)-')::int), 0) AS n FROM events WHERE event_id ~ ${CLONED_EVENT}`);
    let tickets = Number((await query(`SELECT count(*) AS n FROM tickets`))[0].n);
    let copies = 0;
    let idsUsed = 0;
    while (copies === 0 || tickets + template <= targetTickets) {
      copies += 1;
      idsUsed += await cloneOnce(query, started, Number(done) + copies, idsUsed);
      tickets += template;
    }
    await query(`VACUUM ANALYZE`);
    // A ledger that grew over a year wrote its pages long ago. Without this, the copies' gigabytes of
    // dirty pages are written during the next measurements, spread over most of checkpoint_timeout.
    await query(`CHECKPOINT`);
    return { tickets, copies, milliseconds: Date.now() - started };
  } finally {
    await runner.release();
    await dataSource.destroy();
  }
}
