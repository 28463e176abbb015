import { randomBytes } from "node:crypto";
import { parseArgs } from "node:util";

import { Client } from "pg";

import { loadConfig } from "../src/config/app-config";
import { measureCopyLimit } from "./copy-limit";
import { type Figure, meetsTarget, ratioOf, writeFigures } from "./figures";
import { type Layout, type NpmStartStack, startNpmStartStack } from "./stack/npm-start-stack";
import { cpuProfilesIn, formatCpuSummary, summarizeCpuProfile } from "./stack/cpu-profile";
import { runDirectory } from "./stack/run-directory";
import { Teardown } from "./stack/teardown";
import { median, quantile } from "./stats";

/**
 * An on-sale: 10 shop servers selling at once, each a client that POSTs /api/v1/sold with 100 new
 * tickets, the next as soon as the answer arrives, for 30 s (after 3 s of warm-up), on one event and
 * then spread over 10 events. The stack is `npm start` itself (scripts/start.ts: the api and the
 * worker as separate processes, the chain writer running, on a playground Anvil of its own: chain id
 * 31337, a block per transaction), with callbacks to a local HTTPS receiver in a process of its own.
 * Prints tickets accepted per second and the request latency (p50, p99, max), checks the ledger
 * (every accepted ticket stored once, tokenIds unique and made of the event's index and the
 * ticket's serial, each event's ticketsSold its tickets) and writes its figures into
 * bench/results.json. The service runs at its default rate limits, all clients on one API key: the
 * key's request rate is printed beside the default limit (a 429 stops the run), which is how that
 * default is sized (docs/operators/scaling-out.md). `npm run bench:onsale -- --events 1` runs one variant, `--seconds N` changes
 * the measured time, `--layout single` runs `npm start -- --single-process` (one process).
 */
export const CLIENTS = 10;
export const TICKETS_PER_REQUEST = 100;
export const WARMUP_SECONDS = 3;
const TARGET_TICKETS_PER_SECOND = 5_000;
const TARGET_P99_MS = 300;
/** COPYs of 5000 sales' rows timed after each variant's load. */
const COPY_RUNS = 5;

export interface OnsaleOptions {
  /** The variants: how many events the load is spread over. */
  events: number[];
  seconds: number;
  layout: Layout;
}

export interface OnsaleResult {
  events: number;
  requests: number;
  tickets: number;
  ticketsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  seconds: number;
  /** PostgreSQL's COPY of 5000 of the run's sales (50 requests' rows), median, measured after the load. */
  copyMs: number | undefined;
  /** The most actions of the organization accepted and not yet on chain seen during the load (ORG_MAX_QUEUED_ACTIONS's count). */
  peakQueued: number;
}

const FIGURE_WHAT = {
  "tickets/s": "tickets accepted per second",
  p99: "request p99",
  "requests/s": "requests/s on one API key",
  "actions/s": "actions/s on one API key",
  queued: "actions accepted and not yet on chain, at most",
} as const;

export const onsaleFigureName = (events: number, what: keyof typeof FIGURE_WHAT) =>
  `On-sale: ${events === 1 ? "one event" : `${events} events`}, ${CLIENTS} clients × ${TICKETS_PER_REQUEST} tickets a request (npm start), ${FIGURE_WHAT[what]}`;

/** The default per-key budget, in requests per second: what the service admits without configuration. */
function defaultRequestsPerSecond(): number {
  const { points, durationSeconds } = loadConfig({}).rateLimit;
  return points / durationSeconds;
}

/** The default per-key actions budget (RATE_LIMIT_ACTIONS), in actions per second. */
function defaultActionsPerSecond(): number {
  const { actions, durationSeconds } = loadConfig({}).rateLimit;
  return actions / durationSeconds;
}

/** The default ORG_MAX_QUEUED_ACTIONS. */
const defaultQueueLimit = () => loadConfig({}).limits.organizationQueuedActions;

/** The key's request rate at most half its default budget: room for an on-sale twice as fast. The same for its actions and its queue. */
const REQUEST_RATE_GOAL = 0.5;
/** How often the organization's queue (actions accepted and not yet on chain) is looked at during the load. */
const QUEUE_SAMPLE_MS = 250;

/** Runs each variant on a fresh stack, prints the table and returns the figures. */
export async function runOnsaleBench(options: OnsaleOptions = { events: [1, 10], seconds: 30, layout: "split" }): Promise<Figure[]> {
  const results: OnsaleResult[] = [];
  for (const events of options.events) {
    console.log(
      `\n-- ${CLIENTS} clients selling ${TICKETS_PER_REQUEST} tickets a request on ${events} event(s) for ${options.seconds} s (${options.layout} layout)`,
    );
    results.push(await runVariant(events, options.seconds, options.layout));
  }
  console.table(
    results.map((r) => ({
      events: r.events,
      requests: r.requests,
      "requests/s": Math.round(r.requests / r.seconds),
      "tickets accepted": r.tickets,
      "tickets/s": Math.round(r.ticketsPerSecond),
      "p50 ms": Math.round(r.p50Ms),
      "p99 ms": Math.round(r.p99Ms),
      "max ms": Math.round(r.maxMs),
      "COPY of 5000 sales ms": r.copyMs === undefined ? "-" : r.copyMs.toFixed(1),
      "queued at most": r.peakQueued,
      target: `≥ ${TARGET_TICKETS_PER_SECOND}/s, p99 ≤ ${TARGET_P99_MS} ms`,
      met: r.ticketsPerSecond >= TARGET_TICKETS_PER_SECOND && r.p99Ms <= TARGET_P99_MS ? "yes" : "NO",
    })),
  );
  // The layout npm start runs by default is the figure; --layout single is for comparison.
  if (options.layout !== "split") return [];
  const budget = defaultRequestsPerSecond();
  const actionsBudget = defaultActionsPerSecond();
  const queueLimit = defaultQueueLimit();
  console.log(
    `Default budgets of one key: ${budget} requests/s (RATE_LIMIT_REQUESTS), ${actionsBudget} actions/s (RATE_LIMIT_ACTIONS); of one organization: ${queueLimit} actions accepted and not yet on chain (ORG_MAX_QUEUED_ACTIONS).`,
  );
  return results.flatMap((r) => [
    {
      name: onsaleFigureName(r.events, "requests/s"),
      value: Math.round(r.requests / r.seconds),
      unit: "requests/s",
      target: budget,
      better: "lower",
      limit: budget,
      limitName: "the default per-key rate limit",
      ratio: ratioOf(r.requests / r.seconds, budget),
      ratioGoal: REQUEST_RATE_GOAL,
    } satisfies Figure,
    {
      name: onsaleFigureName(r.events, "actions/s"),
      value: Math.round(r.ticketsPerSecond),
      unit: "actions/s",
      target: actionsBudget,
      better: "lower",
      limit: actionsBudget,
      limitName: "the default per-key actions budget (RATE_LIMIT_ACTIONS per RATE_LIMIT_WINDOW_SECONDS)",
      ratio: ratioOf(r.ticketsPerSecond, actionsBudget),
      ratioGoal: REQUEST_RATE_GOAL,
    } satisfies Figure,
    {
      name: onsaleFigureName(r.events, "queued"),
      value: r.peakQueued,
      unit: "actions",
      target: queueLimit,
      better: "lower",
      limit: queueLimit,
      limitName: "the default ORG_MAX_QUEUED_ACTIONS",
      ratio: ratioOf(r.peakQueued, queueLimit),
      ratioGoal: REQUEST_RATE_GOAL,
    } satisfies Figure,
    {
      name: onsaleFigureName(r.events, "tickets/s"),
      value: Math.round(r.ticketsPerSecond),
      unit: "tickets/s",
      target: TARGET_TICKETS_PER_SECOND,
      better: "higher",
    },
    { name: onsaleFigureName(r.events, "p99"), value: Math.round(r.p99Ms), unit: "ms", target: TARGET_P99_MS, better: "lower" },
  ]);
}

async function runVariant(eventCount: number, seconds: number, layout: Layout): Promise<OnsaleResult> {
  const teardown = new Teardown();
  const logs = runDirectory(`bench-onsale-${eventCount}`);
  let passed = false;
  teardown.add("process logs", async () => logs.finish(passed));
  let stack: NpmStartStack | undefined;
  try {
    stack = await startNpmStartStack(layout, logs, teardown, `onsale-${eventCount}`);
    const { baseUrl, apiKey, ticketeerId, receiverPort, db } = stack;
    const server = { baseUrl, apiKey };

    const run = randomBytes(3).toString("hex");
    const eventIds = Array.from({ length: eventCount }, (_, i) => `onsale-${run}-${i}`);
    for (const eventId of eventIds) {
      await post(server, "/api/v1/events", { eventId, ticketeerId, currency: "EUR", callbackUrl: `https://localhost:${receiverPort}/callbacks` });
    }

    const sell = seller([server], eventIds, run);

    const queue = sampleQueue(db);
    await load(sell, WARMUP_SECONDS * 1000);
    const before = await acceptedTickets(db);
    const measured = await load(sell, seconds * 1000);
    const peakQueued = await queue.stop();
    const after = await acceptedTickets(db);
    if (after - before !== measured.tickets)
      throw new Error(`the ledger gained ${after - before} tickets during the run, the answers accepted ${measured.tickets}`);
    await checkLedger(db, eventIds.length);
    const confirmed = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM chain_actions WHERE kind = 'sold' AND status = 'confirmed'`);
    console.log(`${after} tickets in the ledger, ${confirmed.rows[0].n} of them confirmed on chain when the load stopped`);
    // The machine's speed at the time, beside the latency: PostgreSQL's COPY of the rows 50 of the
    // run's requests wrote (5000 sales), once npm start has stopped (its writer rewrites rows it sends).
    await stack.stop();
    const copy = await measureCopyLimit(stack.databaseUrl, TICKETS_PER_REQUEST, COPY_RUNS, { perCopy: 5000 / TICKETS_PER_REQUEST, atMost: true }).catch(
      (error: unknown) => {
        console.log(`no COPY time: ${error instanceof Error ? error.message : String(error)}`);
        return undefined;
      },
    );
    if (copy)
      console.log(
        `PostgreSQL COPY of 5000 of the run's sales (${copy.tables.map(({ table, rows }) => `${table} ${rows}`).join(", ")}): median ${copy.medianMs.toFixed(1)} ms of ${copy.runs}`,
      );
    passed = true;
    return {
      events: eventCount,
      requests: measured.latencies.length,
      tickets: measured.tickets,
      ticketsPerSecond: measured.tickets / measured.seconds,
      p50Ms: median(measured.latencies),
      p99Ms: quantile(measured.latencies, 0.99),
      maxMs: Math.max(...measured.latencies),
      seconds: measured.seconds,
      copyMs: copy?.medianMs,
      peakQueued,
    };
  } finally {
    await teardown.run();
    if (stack?.cpuProfileDir && stack.apiPid !== undefined) {
      for (const file of cpuProfilesIn(stack.cpuProfileDir, stack.apiPid)) console.log(formatCpuSummary(`api process, ${file}`, summarizeCpuProfile(file)));
    }
  }
}

/**
 * A shop server's sale: `client` POSTs /api/v1/sold with TICKETS_PER_REQUEST new tickets of its
 * event (clients spread over `eventIds`) to its server (clients spread over `servers`, as a load
 * balancer would); the tickets it accepted. Any refused sale throws.
 */
export function seller(servers: { baseUrl: string; apiKey: string }[], eventIds: string[], run: string): (client: number) => Promise<number> {
  let ticketCounter = 0;
  return async (client) => {
    const eventId = eventIds[client % eventIds.length];
    const items = Array.from({ length: TICKETS_PER_REQUEST }, () => ({ eventId, ticketId: `${run}-${++ticketCounter}`, price: "49.95" }));
    const answer = (await post(servers[client % servers.length], "/api/v1/sold", items)) as { status: string }[];
    const refused = answer.filter((entry) => entry.status !== "success");
    if (refused.length > 0) throw new Error(`refused sales: ${JSON.stringify(refused[0])}`);
    return answer.length;
  };
}

/** CLIENTS loops, each sending its next request when the last is answered, until `durationMs` has passed. */
export async function load(sell: (client: number) => Promise<number>, durationMs: number) {
  const latencies: number[] = [];
  let tickets = 0;
  const started = performance.now();
  const deadline = started + durationMs;
  await Promise.all(
    Array.from({ length: CLIENTS }, async (_, client) => {
      while (performance.now() < deadline) {
        const sent = performance.now();
        const accepted = await sell(client);
        tickets += accepted;
        latencies.push(performance.now() - sent);
      }
    }),
  );
  return { latencies, tickets, seconds: (performance.now() - started) / 1000 };
}

async function post(server: { baseUrl: string; apiKey: string }, path: string, body: unknown): Promise<unknown> {
  const response = await fetch(server.baseUrl + path, {
    method: "POST",
    headers: { "content-type": "application/json", "x-api-key": server.apiKey },
    body: JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`${path}: ${response.status} ${await response.text()}`);
  return response.json();
}

/**
 * Looks at the organizations' queues every QUEUE_SAMPLE_MS (the ledger's own count, which is what
 * ORG_MAX_QUEUED_ACTIONS holds against: one read of a few rows, not a count of the actions) until
 * stopped; the largest seen of any organization.
 */
export function sampleQueue(db: Client): { stop: () => Promise<number> } {
  let peak = 0;
  let stopped = false;
  const sampling = (async () => {
    while (!stopped) {
      const { rows } = await db.query<{ queued: string | null }>(
        `SELECT max(q.queued + COALESCE((SELECT sum(c.delta) FROM organization_queue_changes c WHERE c.organization_id = q.organization_id), 0))::text AS queued
           FROM organization_queues q`,
      );
      peak = Math.max(peak, Number(rows[0].queued ?? 0));
      await new Promise((resolve) => setTimeout(resolve, QUEUE_SAMPLE_MS));
    }
  })();
  return {
    stop: async () => {
      stopped = true;
      await sampling;
      return peak;
    },
  };
}

export async function acceptedTickets(db: Client): Promise<number> {
  const { rows } = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM tickets`);
  return rows[0].n;
}

/** Every ticket once with a unique tokenId of its event, each event's ticketsSold its tickets. */
export async function checkLedger(db: Client, events: number): Promise<void> {
  const { rows } = await db.query<{ tickets: number; token_ids: number; sales: number; counted: string; events: number; mismatched: number }>(
    `SELECT (SELECT count(*)::int FROM tickets) AS tickets,
            (SELECT count(DISTINCT token_id)::int FROM tickets) AS token_ids,
            (SELECT count(*)::int FROM chain_actions WHERE kind = 'sold') AS sales,
            (SELECT (sum(tickets_sold) + (SELECT coalesce(sum(count), 0) FROM event_sales))::text FROM events) AS counted,
            (SELECT count(*)::int FROM events) AS events,
            (SELECT count(*)::int FROM tickets t JOIN events e ON e.id = t.event_ref WHERE t.token_id <> (e.event_index::numeric * 18446744073709551616 + t.serial)) AS mismatched`,
  );
  const row = rows[0];
  const problems = [
    row.events !== events && `${row.events} events, expected ${events}`,
    row.token_ids !== row.tickets && `${row.tickets} tickets but ${row.token_ids} distinct tokenIds`,
    row.sales !== row.tickets && `${row.sales} sales in the ledger for ${row.tickets} tickets`,
    Number(row.counted) !== row.tickets && `the events count ${row.counted} tickets sold, the ledger holds ${row.tickets}`,
    row.mismatched > 0 && `${row.mismatched} tickets whose tokenId is not their event's index and their serial`,
  ].filter(Boolean);
  if (problems.length > 0) throw new Error(`ledger check failed: ${problems.join("; ")}`);
}

const USAGE = "options: --events N (default: 1, then 10; repeat for several), --seconds S (default 30), --layout split|single (default split, as npm start)";

export function parseOnsaleOptions(argv: string[]): OnsaleOptions {
  let values: { events?: string[]; seconds?: string; layout?: string };
  try {
    values = parseArgs({
      args: argv,
      options: { events: { type: "string", multiple: true }, seconds: { type: "string" }, layout: { type: "string" } },
      strict: true,
    }).values;
  } catch (error) {
    throw new Error(`${error instanceof Error ? error.message : String(error)}\n${USAGE}`, { cause: error });
  }
  const events = (values.events ?? ["1", "10"]).map(Number);
  const seconds = Number(values.seconds ?? 30);
  const layout = (values.layout ?? "split") as Layout;
  if (events.some((n) => !Number.isInteger(n) || n < 1) || !(seconds > 0) || !["split", "single"].includes(layout)) throw new Error(USAGE);
  return { events, seconds, layout };
}

if (require.main === module) {
  Promise.resolve()
    .then(async () => {
      const figures = await runOnsaleBench(parseOnsaleOptions(process.argv.slice(2)));
      for (const figure of figures) console.log(`${meetsTarget(figure) ? "met   " : "missed"} ${figure.name}: ${figure.value} ${figure.unit}`);
      writeFigures(figures);
    })
    .catch((error: unknown) => {
      console.error(error);
      process.exitCode = 1;
    });
}
