import { randomBytes } from "node:crypto";
import { parseArgs } from "node:util";

import type { Client } from "pg";

import { type Figure, ratioOf, writeFigures } from "./figures";
import { ageClocks, ageLedger, cloneHistory, type Pruned, runRetention } from "./growth/ledger-history";
import { load, seller, WARMUP_SECONDS } from "./onsale-bench";
import { soldActions } from "./e2e-bench";
import { type NpmStartStack, startNpmStartStack } from "./stack/npm-start-stack";
import { runDirectory } from "./stack/run-directory";
import { Teardown } from "./stack/teardown";
import { median, quantile } from "./stats";

/**
 * `npm run bench:growth`: what the service costs as its ledger grows. One `npm start` (split: api
 * and worker; its playground chain, Anvil's 2-second blocks) is measured through its API on an empty
 * ledger, then at each size of `--sizes` (default 1 M and 10 M tickets), the ledger filled between
 * them with copies of the rows the service wrote itself, aged past every retention period
 * (bench/growth/ledger-history.ts). At each size:
 *
 * - the on-sale (10 shop servers POSTing /api/v1/sold with 100 new tickets each, the next when
 *   answered) for ONSALE_SECONDS: p99;
 * - STREAM_REQUESTS `/stream` requests of 5,000 sales one after the other: median;
 * - once those are confirmed and called back, LOOKUPS reads each of `GET /api/v1/tickets/{id}`,
 *   `GET /api/v1/actions/{promise}` and `/tokens/{id}` of tickets just sold, CONCURRENCY at a time: p99;
 * - bytes per ticket by table (pg_total_relation_size: table, TOAST, indexes) once the sizes' own
 *   sales are aged and retention ran, as a ledger holds them after a year.
 *
 * At the largest size the service's retention (RetentionService, as a worker runs it) then deletes
 * that size's callbacks and clears its transactions' bytes while the on-sale runs again: its p99
 * beside the one without retention says whether retention blocks the API.
 *
 * Goals: every latency at the largest size ≤ 1.2× the empty ledger's, the on-sale under retention
 * ≤ 1.2× without; ≤ 1,500 bytes per ticket.
 */
const ONSALE_SECONDS = 15;
const STREAM_REQUESTS = 6;
const PER_STREAM = 5_000;
const LOOKUPS = 1_000;
const CONCURRENCY = 8;
const LATENCY_RATIO_GOAL = 1.2;
const BYTES_PER_TICKET_GOAL = 1_500;
const TABLES = ["tickets", "chain_actions", "chain_action_changes", "callbacks", "callback_attempts", "chain_transactions", "events"] as const;
/** Far beyond a healthy run: a stalled writer fails the benchmark instead of hanging it. */
const SETTLE_DEADLINE_MS = 900_000;
/** The size from which a run writes its figures. */
const RESULTS_SIZE = 10_000_000;

type Latency = "onsale p99" | "stream 5000 median" | "ticket read p99" | "action read p99" | "token metadata p99";

type Bytes = Record<(typeof TABLES)[number] | "total", number>;

interface Point {
  tickets: number;
  latencies: Record<Latency, number>;
  /** The ledger's size over its tickets. */
  bytesPerTicket: Bytes;
  /** What the point's own sales added, over their count, once aged: a ticket's lasting cost as the service writes it. */
  addedPerSale: Bytes;
  fillSeconds?: number;
}

/** The on-sale while retention ran, beside the same size's on-sale without it. */
interface UnderRetention {
  p99Ms: number;
  withoutMs: number;
  requests: number;
  retentionSeconds: number;
  /** The seconds of the on-sale retention ran beside. */
  coveredSeconds: number;
  pruned: Pruned;
}

async function main(sizes: number[]): Promise<void> {
  const teardown = new Teardown();
  const logs = runDirectory("bench-growth");
  let passed = false;
  teardown.add("process logs", async () => logs.finish(passed));
  try {
    const stack = await startNpmStartStack("split", logs, teardown, "growth");
    const run = randomBytes(3).toString("hex");
    // Every event is registered on chain first: copies then take registry indexes after them.
    const eventIds = [0, ...sizes].map((_, point) => ({ onsale: `growth-${run}-${point}-onsale`, stream: `growth-${run}-${point}-stream` }));
    for (const { onsale, stream } of eventIds) for (const eventId of [onsale, stream]) await registerEvent(stack, eventId);
    await settle(stack.db, "0");

    const points: Point[] = [];
    let underRetention: UnderRetention | undefined;
    for (const [index, size] of [0, ...sizes].entries()) {
      let fillSeconds: number | undefined;
      if (size > 0) {
        const clone = await cloneHistory(stack.databaseUrl, size);
        fillSeconds = clone.milliseconds / 1000;
        console.log(`filled to ${clone.tickets.toLocaleString("en-US")} tickets (${clone.copies} copies) in ${fillSeconds.toFixed(0)} s`);
      }
      const before = await tableSizes(stack.db);
      const latencies = await measureLatencies(stack, eventIds[index], `${run}-${index}`, index * STREAM_REQUESTS * PER_STREAM);
      console.log(`latencies at ${before.tickets.toLocaleString("en-US")} tickets: ${JSON.stringify(latencies)}`);
      if (index === sizes.length) {
        underRetention = await onsaleUnderRetention(stack, eventIds[index].onsale, `${run}-retention`, latencies["onsale p99"]);
        console.table([underRetention]);
      }
      const aged = await ageLedger(stack.databaseUrl);
      console.log(`aged: ${aged.callbacks} callbacks, ${aged.rawTransactions} transactions' bytes, ${aged.changes} change-log entries pruned`);
      const after = await tableSizes(stack.db);
      const point: Point = {
        tickets: after.tickets,
        latencies,
        bytesPerTicket: perTicket(after.bytes, after.tickets),
        addedPerSale: perTicket(difference(after.bytes, before.bytes), after.tickets - before.tickets),
        fillSeconds,
      };
      points.push(point);
      console.table([{ tickets: point.tickets, ...point.latencies, "bytes/ticket": point.bytesPerTicket.total, "added/sale": point.addedPerSale.total }]);
    }
    report(points);
    await printLargest(stack.db, points.at(-1)!.tickets);
    // Only the issue's sizes go into bench/results.json: a quicker run is a look, not a figure.
    if (sizes.at(-1)! >= RESULTS_SIZE) writeFigures([...figuresOf(points), underRetentionFigure(underRetention!, points.at(-1)!.tickets)]);
    passed = true;
  } finally {
    await teardown.run();
  }
}

async function registerEvent(stack: NpmStartStack, eventId: string): Promise<void> {
  const body = { eventId, ticketeerId: stack.ticketeerId, currency: "EUR", callbackUrl: `https://localhost:${stack.receiverPort}/callbacks` };
  await send(stack, "POST", "/api/v1/events", body);
}

/** The latencies on the ledger as it is; `firstTicket` numbers the /stream sales' ticket ids (unique in the organization). */
async function measureLatencies(
  stack: NpmStartStack,
  events: { onsale: string; stream: string },
  run: string,
  firstTicket: number,
): Promise<Record<Latency, number>> {
  const since = await lastSeq(stack.db);
  const sell = seller([stack], [events.onsale], run);
  await load(sell, WARMUP_SECONDS * 1000);
  const onsale = await load(sell, ONSALE_SECONDS * 1000);
  const streamed: number[] = [];
  const promises: string[] = [];
  for (let request = 0; request < STREAM_REQUESTS; request++) {
    const started = performance.now();
    const answer = (await send(stack, "POST", "/stream", soldActions(events.stream, firstTicket + request * PER_STREAM, PER_STREAM))) as {
      data: { status: string; actionPromise: string }[];
    };
    streamed.push(performance.now() - started);
    const refused = answer.data.find((item) => item.status !== "success");
    if (refused) throw new Error(`a /stream sale was refused: ${JSON.stringify(refused)}`);
    promises.push(...answer.data.map((item) => item.actionPromise));
  }
  await settle(stack.db, since);
  const sample = Array.from({ length: LOOKUPS }, (_, i) => Math.floor((i * promises.length) / LOOKUPS));
  const { rows } = await stack.db.query<{ ticket_id: string; token_id: string }>(
    `SELECT t.ticket_id, t.token_id::text FROM chain_actions a JOIN tickets t ON t.id = a.ticket_ref WHERE a.id = ANY($1::uuid[])`,
    [sample.map((i) => promises[i])],
  );
  return {
    "onsale p99": quantile(onsale.latencies, 0.99),
    "stream 5000 median": median(streamed),
    "ticket read p99": await readP99(
      stack,
      rows.map((row) => `/api/v1/tickets/${encodeURIComponent(row.ticket_id)}`),
    ),
    "action read p99": await readP99(
      stack,
      sample.map((i) => `/api/v1/actions/${promises[i]}`),
    ),
    "token metadata p99": await readP99(
      stack,
      rows.map((row) => `/tokens/${row.token_id}`),
    ),
  };
}

/**
 * Ages what the ledger holds past every retention period, then runs the on-sale for ONSALE_SECONDS
 * while one retention run works through it (its batches and pauses, as on a worker, and the api's
 * change-log pruning); the run is then let finish and the backlog settled. `coveredSeconds` says how
 * much of the on-sale the retention run overlapped.
 */
async function onsaleUnderRetention(stack: NpmStartStack, eventId: string, run: string, withoutMs: number): Promise<UnderRetention> {
  await ageClocks(stack.databaseUrl);
  const since = await lastSeq(stack.db);
  const sell = seller([stack], [eventId], run);
  await load(sell, WARMUP_SECONDS * 1000);
  const started = performance.now();
  let retentionSeconds: number | undefined;
  const retention = runRetention(stack.databaseUrl).finally(() => (retentionSeconds = (performance.now() - started) / 1000));
  // Handled here so that a failure of either is reported, not left as an unhandled rejection.
  const [onsale, pruned] = await Promise.all([load(sell, ONSALE_SECONDS * 1000), retention]);
  await settle(stack.db, since);
  const coveredSeconds = Math.min(retentionSeconds!, onsale.seconds);
  return { p99Ms: quantile(onsale.latencies, 0.99), withoutMs, requests: onsale.latencies.length, retentionSeconds: retentionSeconds!, coveredSeconds, pruned };
}

function underRetentionFigure(under: UnderRetention, tickets: number): Figure {
  return {
    name: `growth: onsale p99 while retention runs at ${(tickets / 1e6).toFixed(0)} M tickets`,
    value: Math.round(under.p99Ms),
    unit: "ms",
    target: Math.round(under.withoutMs * LATENCY_RATIO_GOAL),
    better: "lower",
    limit: Math.round(under.withoutMs),
    limitName:
      `the same on-sale without retention, in the same run (retention deleted ${under.pruned.callbacks} callbacks and ` +
      `${under.pruned.changes} change-log entries in ${under.retentionSeconds.toFixed(1)} s, beside ${under.coveredSeconds.toFixed(1)} s of the on-sale)`,
    ratio: ratioOf(under.p99Ms, under.withoutMs),
    ratioGoal: LATENCY_RATIO_GOAL,
  };
}

/** GETs `paths`, CONCURRENCY at a time, after one warm-up pass over the first few; the p99 in ms. */
async function readP99(stack: NpmStartStack, paths: string[]): Promise<number> {
  for (const path of paths.slice(0, CONCURRENCY)) await send(stack, "GET", path);
  const latencies: number[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < paths.length) {
        const path = paths[next++];
        const started = performance.now();
        await send(stack, "GET", path);
        latencies.push(performance.now() - started);
      }
    }),
  );
  return quantile(latencies, 0.99);
}

async function send(stack: NpmStartStack, method: "GET" | "POST", path: string, body?: unknown): Promise<unknown> {
  const response = await fetch(stack.baseUrl + path, {
    method,
    headers: { "content-type": "application/json", "x-api-key": stack.apiKey },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`);
  return response.json();
}

/**
 * Until every action after `since` (a seq) is final and every callback delivered. Each count goes
 * through an index (the partial ones of the open statuses, the sequence for the errors of the
 * measured sales): counted by scanning, a poll of a 10 M ledger took seconds of both cores while
 * the writer drained.
 */
async function settle(db: Client, since: string): Promise<void> {
  const deadline = Date.now() + SETTLE_DEADLINE_MS;
  for (;;) {
    const { rows } = await db.query<{ open: number; failed: number; undelivered: number }>(
      `SELECT ((SELECT count(*) FROM chain_actions WHERE status = 'waiting_broadcast')
             + (SELECT count(*) FROM chain_actions WHERE status = 'waiting_funds')
             + (SELECT count(*) FROM chain_actions WHERE status = 'pending'))::int AS open,
              (SELECT count(*) FROM chain_actions WHERE seq > $1 AND status = 'error')::int AS failed,
              (SELECT count(*) FROM callbacks WHERE status <> 'delivered')::int AS undelivered`,
      [since],
    );
    const [{ open, failed, undelivered }] = rows;
    if (failed > 0) throw new Error(`${failed} actions failed`);
    if (open === 0 && undelivered === 0) return;
    if (Date.now() > deadline) throw new Error(`${open} actions open and ${undelivered} callbacks undelivered after ${SETTLE_DEADLINE_MS / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

/** The ledger's last seq: what settle() looks for errors after (copies of history are confirmed). */
async function lastSeq(db: Client): Promise<string> {
  return (await db.query<{ seq: string }>(`SELECT coalesce(max(seq), 0)::text AS seq FROM chain_actions`)).rows[0].seq;
}

type Sizes = Record<(typeof TABLES)[number], number>;

/** pg_total_relation_size of each table, and the ledger's tickets. */
async function tableSizes(db: Client): Promise<{ tickets: number; bytes: Sizes }> {
  const { rows } = await db.query<Sizes & { ledger_tickets: number }>(
    `SELECT (SELECT count(*) FROM tickets)::int AS ledger_tickets, ${TABLES.map((table) => `pg_total_relation_size('${table}')::float8 AS ${table}`).join(", ")}`,
  );
  const { ledger_tickets: tickets, ...bytes } = rows[0];
  return { tickets, bytes };
}

const difference = (after: Sizes, before: Sizes) => Object.fromEntries(TABLES.map((table) => [table, after[table] - before[table]])) as Sizes;

function perTicket(bytes: Sizes, tickets: number): Bytes {
  const perTable = Object.fromEntries(TABLES.map((table) => [table, Math.round(bytes[table] / tickets)])) as Sizes;
  return { ...perTable, total: Object.values(perTable).reduce((sum, value) => sum + value, 0) };
}

/** The largest tables and indexes of the ledger at its largest size, in bytes per ticket: where the bytes are. */
async function printLargest(db: Client, tickets: number): Promise<void> {
  const { rows } = await db.query<{ relation: string; kind: string; bytes: number }>(
    `SELECT c.relname AS relation, CASE c.relkind WHEN 'i' THEN 'index' ELSE 'table' END AS kind, pg_relation_size(c.oid)::float8 AS bytes
       FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = 'public' AND c.relkind IN ('r', 'i', 't') ORDER BY pg_relation_size(c.oid) DESC LIMIT 16`,
  );
  console.log(`The largest relations at ${tickets.toLocaleString("en-US")} tickets:`);
  console.table(rows.map((row) => ({ relation: row.relation, kind: row.kind, "bytes/ticket": Math.round(row.bytes / tickets) })));
}

function report(points: Point[]): void {
  const [empty] = points;
  console.log("\nLatency (ms) by ledger size, and its ratio to the empty ledger's:");
  console.table(
    points.map((point) => ({
      tickets: point.tickets,
      ...Object.fromEntries(
        Object.entries(point.latencies).map(([name, ms]) => [name, `${ms.toFixed(0)} (${ratioOf(ms, empty.latencies[name as Latency])}×)`]),
      ),
    })),
  );
  console.log(`Bytes per ticket by table (goal ≤ ${BYTES_PER_TICKET_GOAL} in all):`);
  console.table(points.map((point) => ({ "ledger tickets": point.tickets, ...point.bytesPerTicket })));
  console.log("Bytes per ticket each point's own sales added (through the API, then aged), by table:");
  console.table(points.map((point) => ({ "ledger tickets": point.tickets, ...point.addedPerSale })));
}

function figuresOf(points: Point[]): Figure[] {
  const [empty] = points;
  const largest = points[points.length - 1];
  const size = `${(largest.tickets / 1e6).toFixed(0)} M`;
  const latencies = (Object.keys(largest.latencies) as Latency[]).map((name): Figure => ({
    name: `growth: ${name} at ${size} tickets`,
    value: Math.round(largest.latencies[name]),
    unit: "ms",
    target: Math.round(empty.latencies[name] * LATENCY_RATIO_GOAL),
    better: "lower",
    limit: Math.round(empty.latencies[name]),
    limitName: "the same on the empty ledger, in the same run",
    ratio: ratioOf(largest.latencies[name], empty.latencies[name]),
    ratioGoal: LATENCY_RATIO_GOAL,
  }));
  return [
    ...latencies,
    {
      name: `growth: PostgreSQL bytes per ticket at ${size} tickets`,
      value: largest.bytesPerTicket.total,
      unit: "bytes",
      target: BYTES_PER_TICKET_GOAL,
      better: "lower",
    },
    {
      name: `growth: PostgreSQL bytes a sale added at ${size} tickets, once aged`,
      value: largest.addedPerSale.total,
      unit: "bytes",
      target: BYTES_PER_TICKET_GOAL,
      better: "lower",
    },
  ];
}

function parseSizes(argv: string[]): number[] {
  const { values } = parseArgs({ args: argv, options: { sizes: { type: "string", default: "1000000,10000000" } } });
  const sizes = values.sizes.split(",").map(Number);
  if (sizes.some((size) => !Number.isInteger(size) || size <= 0)) throw new Error(`--sizes takes ticket counts, such as 1000000,10000000`);
  return sizes.sort((a, b) => a - b);
}

if (require.main === module) {
  void main(parseSizes(process.argv.slice(2))).catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  });
}
