import { randomBytes } from "node:crypto";
import { join } from "node:path";
import { parseArgs } from "node:util";

import { Client } from "pg";
import type { EntityManager } from "typeorm";

import { signedHeaders } from "../src/callbacks/delivery/callback-signing";
import { insertCallbacks } from "../src/ledger/outbox";
import { generateTestTls, writeTestTls } from "../scripts/stack/local-tls";
import type { OwnedProcess } from "../scripts/stack/owned-process";
import { startBenchServer } from "./bench-server";
import { startCallbackSink } from "./callback-sink";
import { describeLimit, type Figure, meetsRatioGoal, ratioOf } from "./figures";
import { runHangingLookupsBench } from "./hanging-lookups-bench";
import { measureReceiverCapacity } from "./receiver-load";
import { runDirectory } from "./stack/run-directory";
import { cpuProfilesOf, spawnBenchService } from "./stack/bench-service";
import { formatCpuSummary, summarizeCpuProfile } from "./stack/cpu-profile";
import { Teardown } from "./stack/teardown";
import { quantile } from "./stats";

/** The delivering worker's process name: its log file and, when profiled, its profile are named after it. */
const WORKER_NAME = "callbacks-worker";

/**
 * Callback delivery: 20,000 pending callbacks in a fresh database, made through the real paths —
 * 10,000 tickets sold through /stream whose sales are then marked confirmed as the chain writer
 * would and get their callbacks from the outbox's insertCallbacks, and one updateTicket per ticket
 * through /stream, whose callback the acceptance writes (each waits for its ticket's sale callback:
 * the per-ticket order is part of the work). A worker process (APP_ROLE=worker) then delivers them
 * to a local keep-alive HTTPS receiver answering 204, trusted through NODE_EXTRA_CA_CERTS. Prints
 * deliveries per second beside the target, and the attempts' latency from the delivery log; then
 * the limit: the same receiver's own capacity for the same 20,000 bodies, from a load generator
 * sent straight at it (bench/receiver-load.ts).
 */
const TICKETS = 10_000;
const CALLBACKS = TICKETS * 2;
const PER_REQUEST = 5_000;
const TARGET_PER_SECOND = 1_000;
/** The goal: deliveries at least 0.8 of the receiver's own capacity. */
const RECEIVER_RATIO_GOAL = 0.8;

/** The scenarios of `npm run bench:callbacks`, in the order they run. */
const SCENARIOS = ["rate", "hanging-lookups"] as const;
type Scenario = (typeof SCENARIOS)[number];
const USAGE = `options: --scenario ${SCENARIOS.join("|")} (default: both, one after the other)`;

/**
 * `npm run bench:callbacks [-- --scenario rate|hanging-lookups]`: the delivery rate (below), then one
 * receiver's name lookups hanging beside another receiver (bench/hanging-lookups-bench.ts).
 */
export async function runCallbacksBench(scenarios: readonly Scenario[] = SCENARIOS): Promise<Figure[]> {
  const figures: Figure[] = [];
  if (scenarios.includes("rate")) figures.push(...(await runDeliveryRateBench()));
  if (scenarios.includes("hanging-lookups")) {
    console.log("\nOne receiver's name lookups hang, beside another receiver:");
    figures.push(...(await runHangingLookupsBench()));
  }
  return figures;
}

export function parseCallbacksOptions(argv: string[]): Scenario[] {
  let scenario: string | undefined;
  try {
    scenario = parseArgs({ args: argv, options: { scenario: { type: "string" } }, strict: true }).values.scenario;
  } catch (error) {
    throw new Error(`${error instanceof Error ? error.message : String(error)}\n${USAGE}`, { cause: error });
  }
  if (scenario === undefined) return [...SCENARIOS];
  if (!SCENARIOS.includes(scenario as Scenario)) throw new Error(`--scenario must be one of ${SCENARIOS.join(", ")}, got "${scenario}"\n${USAGE}`);
  return [scenario as Scenario];
}

/** The delivery rate: prints its tables and returns its figure; everything it started is stopped. */
async function runDeliveryRateBench(): Promise<Figure[]> {
  const teardown = new Teardown();
  const logs = runDirectory("bench-callbacks");
  let passed = false;
  teardown.add("process logs", async () => logs.finish(passed));
  try {
    const tls = writeTestTls(await generateTestTls());
    teardown.add("test TLS files", async () => tls.remove());
    const receiver = await startCallbackSink(tls.certFile, tls.keyFile);
    teardown.add("callback receiver", receiver.close);
    const server = await startBenchServer({ APP_ROLE: "api", CALLBACK_ALLOW_HOSTS: "localhost" }, logs.path);
    teardown.add("service", server.stop);
    const db = new Client({ connectionString: server.databaseUrl });
    await db.connect();
    teardown.add("database client", () => db.end());

    const created = await createCallbacks(server, db, `https://localhost:${receiver.port}/callbacks`);
    console.log(`${created} pending callbacks created; starting a worker to deliver them`);

    const transactionsBefore = await committedTransactions(db);
    const spawnedAt = performance.now();
    const worker = spawnBenchService(
      "worker",
      {
        DATABASE_URL: server.databaseUrl,
        APP_MODE: "development",
        // Its operations endpoints (health, metrics) on any free port.
        PORT: "0",
        MIGRATE_AT_BOOT: "false",
        REDIS_KEY_PREFIX: `trs-bench-${randomBytes(4).toString("hex")}`,
        CALLBACK_DELIVERY: "true",
        CALLBACK_ALLOW_HOSTS: "localhost",
        NODE_EXTRA_CA_CERTS: tls.caFile,
        LOG_LEVEL: "warn",
        ...workerEnv(),
      },
      logs.path,
      WORKER_NAME,
    );
    teardown.add("worker", () => worker.stop("SIGTERM"));
    await waitForDelivered(db, CALLBACKS, worker);
    const wall = (performance.now() - spawnedAt) / 1000;

    const { rows } = await db.query<{ first: Date; last: Date; attempts: number; failed: number }>(
      `SELECT min(started_at) AS first, max(started_at + make_interval(secs => duration_ms / 1000.0)) AS last,
              count(*)::int AS attempts, count(*) FILTER (WHERE status_code IS NULL OR status_code >= 300)::int AS failed
         FROM callback_attempts`,
    );
    const durations = (await db.query<{ duration_ms: number }>(`SELECT duration_ms FROM callback_attempts`)).rows.map((row) => row.duration_ms);
    const queued = (
      await db.query<{ ms: number }>(`SELECT extract(epoch FROM (delivered_at - $1::timestamptz)) * 1000 AS ms FROM callbacks`, [rows[0].first])
    ).rows.map((row) => Number(row.ms));
    const seconds = (rows[0].last.getTime() - rows[0].first.getTime()) / 1000;
    const perSecond = CALLBACKS / seconds;
    console.table([
      {
        callbacks: CALLBACKS,
        attempts: rows[0].attempts,
        "failed attempts": rows[0].failed,
        "receiver saw": receiver.count(),
        "first → last attempt s": seconds.toFixed(2),
        "deliveries/s": Math.round(perSecond),
        target: `≥ ${TARGET_PER_SECOND}`,
        met: perSecond >= TARGET_PER_SECOND ? "yes" : "NO",
        "wall s (incl. worker boot)": wall.toFixed(2),
      },
    ]);
    console.log("Delivery latency (one attempt: connect or reuse, TLS, POST, answer), from the attempt log:");
    console.table([{ "p50 ms": quantile(durations, 0.5), "p99 ms": quantile(durations, 0.99), "max ms": Math.max(...durations) }]);
    console.log("Delivered after the first attempt began (the backlog draining):");
    console.table([{ "p50 s": (quantile(queued, 0.5) / 1000).toFixed(2), "p99 s": (quantile(queued, 0.99) / 1000).toFixed(2) }]);
    await worker.stop("SIGTERM");
    // The worker's transactions (and this run's polls, one per 100 ms): how many a delivery costs.
    const transactions = (await committedTransactions(db)) - transactionsBefore;
    console.log(`PostgreSQL transactions while the worker ran: ${transactions}, ${(transactions / CALLBACKS).toFixed(3)} per delivery`);
    // With BENCH_CPU_PROFILE_DIR the worker ran under --cpu-prof (see bench-service.ts): where its time went.
    for (const file of cpuProfilesOf(WORKER_NAME, worker.pid)) console.log(formatCpuSummary(`CPU profile ${file}`, summarizeCpuProfile(file)));

    // The limit: the same receiver, the same bodies, straight from a load generator of its own.
    const secret = `whsec_${randomBytes(32).toString("base64")}`;
    const bodies = (await db.query<{ id: string; body: string }>(`SELECT id, payload::text AS body FROM callbacks ORDER BY created_at, id`)).rows.map(
      ({ id, body }) => {
        const json = JSON.stringify(JSON.parse(body));
        return { body: json, headers: signedHeaders(id, json, [secret]) };
      },
    );
    const before = receiver.count();
    const capacity = await measureReceiverCapacity(
      { url: `https://localhost:${receiver.port}/callbacks`, caFile: tls.caFile, requests: bodies },
      join(logs.path, "receiver-load.json"),
    );
    if (receiver.count() - before !== bodies.length) throw new Error(`the receiver counted ${receiver.count() - before} of ${bodies.length} requests`);
    const figure: Figure = {
      name: "Callbacks delivered to a local HTTPS receiver",
      value: Math.round(perSecond),
      unit: "deliveries/s",
      target: TARGET_PER_SECOND,
      better: "higher",
      limit: Math.round(capacity.perSecond),
      limitName: "the receiver alone: the same bodies and headers from 64 keep-alive fetch loops in a process of their own",
      ratio: ratioOf(perSecond, capacity.perSecond),
      ratioGoal: RECEIVER_RATIO_GOAL,
    };
    console.log("The receiver's own capacity (the same bodies and headers, straight from a load generator process):");
    console.table([
      {
        requests: capacity.requests,
        s: capacity.seconds.toFixed(2),
        "requests/s, receiver alone": figure.limit,
        "delivered / receiver alone": figure.ratio,
        goal: `≥ ${RECEIVER_RATIO_GOAL}`,
        met: meetsRatioGoal(figure) ? "yes" : "NO",
      },
    ]);
    console.log(describeLimit(figure));
    passed = true;
    return [figure];
  } finally {
    await teardown.run();
  }
}

/** 10,000 sales (confirmed as the chain writer would record them) and 10,000 updateTickets: 20,000 callbacks. */
async function createCallbacks(server: Awaited<ReturnType<typeof startBenchServer>>, db: Client, callbackUrl: string): Promise<number> {
  const eventId = `bench-${randomBytes(4).toString("hex")}`;
  const ticketIds = Array.from({ length: TICKETS }, (_, i) => `ticket-${i}`);
  await post(server, "/stream", [{ action: "newEvent", data: { eventId, eventName: "Bench", currency: "EUR", callbackUrl } }]);
  for (let offset = 0; offset < TICKETS; offset += PER_REQUEST) {
    await post(
      server,
      "/stream",
      ticketIds
        .slice(offset, offset + PER_REQUEST)
        .map((ticketId) => ({ action: "soldTicket", data: { eventId, ticketId, price: "49.95", orderTime: 1_750_000_000 } })),
    );
  }
  // What the transaction finalizer does when the sales' transaction is deep enough.
  await db.query("BEGIN");
  const { rows } = await db.query<{ id: string }>(
    `UPDATE chain_actions SET status = 'confirmed', tx_hash = '0x' || repeat('ab', 32), block_number = 1, updated_at = now() WHERE kind = 'sold' RETURNING id`,
  );
  await insertCallbacks(
    { query: (sql: string, params: unknown[]) => db.query(sql, params) } as unknown as EntityManager,
    rows.map((row) => row.id),
    31337n,
    "0x5FbDB2315678afecb367f032d93F642f64180aa3",
  );
  await db.query("COMMIT");
  for (let offset = 0; offset < TICKETS; offset += PER_REQUEST) {
    await post(
      server,
      "/stream",
      ticketIds
        .slice(offset, offset + PER_REQUEST)
        .map((ticketId) => ({ action: "updateTicket", data: { ticketId, uri: `https://meta.example.com/${ticketId}` } })),
    );
  }
  const { rows: counted } = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM callbacks WHERE status = 'pending'`);
  if (counted[0].n !== CALLBACKS) throw new Error(`expected ${CALLBACKS} pending callbacks, found ${counted[0].n}`);
  return counted[0].n;
}

/** Transactions committed in this database so far (pg_stat_database, which counts a lone statement as one). */
async function committedTransactions(db: Client): Promise<number> {
  // Statistics reach pg_stat_database about once a second: clear this session's snapshot and wait for them.
  await new Promise((done) => setTimeout(done, 1_100));
  await db.query("SELECT pg_stat_clear_snapshot()");
  const { rows } = await db.query<{ n: string }>(`SELECT xact_commit + xact_rollback AS n FROM pg_stat_database WHERE datname = current_database()`);
  return Number(rows[0].n);
}

/** BENCH_WORKER_ENV="CALLBACK_CONCURRENCY=400 ..." tries other settings on the worker. */
function workerEnv(): Record<string, string> {
  return Object.fromEntries(
    (process.env.BENCH_WORKER_ENV ?? "")
      .split(/\s+/)
      .filter(Boolean)
      .map((pair) => pair.split("=", 2) as [string, string]),
  );
}

/** The part of a /stream answer read here: each action's status. */
interface StreamAnswer {
  data?: { status: string }[];
}

async function post(server: { baseUrl: string; apiKey: string }, path: string, body: unknown): Promise<void> {
  const response = await fetch(server.baseUrl + path, {
    method: "POST",
    headers: { "content-type": "application/json", "x-api-key": server.apiKey },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  if (!response.ok || (JSON.parse(text) as StreamAnswer).data?.some((item) => item.status !== "success"))
    throw new Error(`${path}: ${response.status} ${text.slice(0, 500)}`);
}

async function waitForDelivered(db: Client, count: number, worker: OwnedProcess): Promise<void> {
  const deadline = Date.now() + 300_000;
  for (;;) {
    if (!worker.running()) throw new Error(`the worker exited; see ${worker.logFile}`);
    const { rows } = await db.query<{ delivered: number; failed: number }>(
      `SELECT count(*) FILTER (WHERE status = 'delivered')::int AS delivered, count(*) FILTER (WHERE status = 'failed')::int AS failed FROM callbacks`,
    );
    if (rows[0].failed > 0) throw new Error(`${rows[0].failed} callbacks failed`);
    if (rows[0].delivered >= count) return;
    if (Date.now() > deadline) throw new Error(`only ${rows[0].delivered} of ${count} callbacks delivered within 300 s`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

if (require.main === module) {
  Promise.resolve()
    .then(() => runCallbacksBench(parseCallbacksOptions(process.argv.slice(2))))
    .catch((error: unknown) => {
      console.error(error);
      process.exitCode = 1;
    });
}
