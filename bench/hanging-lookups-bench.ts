import { randomBytes } from "node:crypto";

import { Client } from "pg";
import type { EntityManager } from "typeorm";

import { insertCallbacks } from "../src/ledger/outbox";
import { SILENT, startTestDnsServer } from "../scripts/stack/dns-server";
import { generateTestTls, writeTestTls } from "../scripts/stack/local-tls";
import { type BenchServer, startBenchServer } from "./bench-server";
import { startCallbackSink } from "./callback-sink";
import { describeLimit, type Figure, ratioOf } from "./figures";
import { runDirectory } from "./stack/run-directory";
import { spawnBenchService } from "./stack/bench-service";
import { Teardown } from "./stack/teardown";
import { quantile } from "./stats";

/**
 * One receiver's name lookups hang: does another receiver's callback latency notice? A worker
 * process with the default delivery settings (400 slots, 15 s attempts) delivers to two receivers
 * whose names a DNS server of the benchmark's own resolves (CALLBACK_DNS_SERVERS): it answers
 * answers.receivers.test with 127.0.0.1 and never answers hangs.receivers.test. The answering
 * receiver closes every connection after its answer, so each callback needs a connection, and so a
 * name, of its own. Its callbacks come at a steady rate (updateTickets through /stream, 100/s for
 * 20 s): first alone, then with 3,000 callbacks due to the hanging receiver. Prints the answering
 * receiver's latency (accepted → delivered) in both phases, side by side, with its parts (waiting to
 * be claimed, the first attempt); the figure is the p99 beside the hanging receiver, its limit the
 * p99 alone. Runs with `npm run bench:callbacks` (alone: `-- --scenario hanging-lookups`).
 */
const ANSWERS = "answers.receivers.test";
const HANGS = "hangs.receivers.test";
const ALLOW_HOSTS = `${ANSWERS},${HANGS}`;
const PER_PHASE = 2_000;
const BATCH = 10;
const BATCH_EVERY_MS = 100;
const HANGING_CALLBACKS = 3_000;
/** How long a phase's callbacks may take after its last one was accepted; those still undelivered then count as slower. */
const SETTLE_MS = 60_000;
const TARGET_P99_MS = 1_000;
const RATIO_GOAL = 2;

interface PhaseResult {
  callbacks: number;
  delivered: number;
  retried: number;
  /** Accepted → delivered, per delivered callback. */
  latenciesMs: number[];
  /** Accepted → first attempt started (waiting to be claimed), and the first attempt's own duration. */
  claimWaitsMs: number[];
  attemptsMs: number[];
}

export async function runHangingLookupsBench(): Promise<Figure[]> {
  const teardown = new Teardown();
  const logs = runDirectory("bench-hanging-lookups");
  let passed = false;
  teardown.add("process logs", async () => logs.finish(passed));
  try {
    const tls = writeTestTls(await generateTestTls());
    teardown.add("test TLS files", async () => tls.remove());
    const dns = await startTestDnsServer({ [ANSWERS]: { a: ["127.0.0.1"], ttl: 60 }, [HANGS]: SILENT });
    teardown.add("DNS server", dns.close);
    const receiver = await startCallbackSink(tls.certFile, tls.keyFile, undefined, { closeConnections: true });
    teardown.add("callback receiver", receiver.close);
    const server = await startBenchServer({ APP_ROLE: "api", CALLBACK_ALLOW_HOSTS: ALLOW_HOSTS }, logs.path);
    teardown.add("service", server.stop);
    const db = new Client({ connectionString: server.databaseUrl });
    await db.connect();
    teardown.add("database client", () => db.end());

    const answering = await soldEvent(server, db, `https://${ANSWERS}:${receiver.port}/callbacks`, 2 * PER_PHASE);
    const worker = spawnBenchService(
      "worker",
      {
        DATABASE_URL: server.databaseUrl,
        APP_MODE: "development",
        PORT: "0",
        MIGRATE_AT_BOOT: "false",
        REDIS_KEY_PREFIX: `trs-bench-${randomBytes(4).toString("hex")}`,
        CALLBACK_DELIVERY: "true",
        CALLBACK_ALLOW_HOSTS: ALLOW_HOSTS,
        CALLBACK_DNS_SERVERS: dns.address,
        NODE_EXTRA_CA_CERTS: tls.caFile,
        LOG_LEVEL: "warn",
      },
      logs.path,
    );
    teardown.add("worker", () => worker.stop("SIGTERM"));
    await waitUntil(db, `SELECT count(*) FILTER (WHERE status = 'delivered') = count(*) AS done FROM callbacks`, "the sales' callbacks delivered");

    console.log(`Phase 1: ${PER_PHASE} callbacks to ${ANSWERS}, ${(BATCH * 1000) / BATCH_EVERY_MS}/s, no other receiver`);
    const alone = await steadyPhase(server, db, answering.ticketIds.slice(0, PER_PHASE));

    const hanging = await soldEvent(server, db, `https://${HANGS}:${receiver.port}/callbacks`, HANGING_CALLBACKS);
    await waitUntil(
      db,
      `SELECT count(*) >= 100 AS done FROM callbacks WHERE event_ref = '${hanging.eventRef}' AND leased_until IS NOT NULL`,
      "the hanging receiver's callbacks claimed",
    );
    console.log(`Phase 2: the same load to ${ANSWERS}, beside ${HANGING_CALLBACKS} callbacks due to ${HANGS}, whose lookups never end`);
    const beside = await steadyPhase(server, db, answering.ticketIds.slice(PER_PHASE));
    const { rows: hangingState } = await db.query<{ delivered: number; attempts: number; errors: string[] }>(
      `SELECT count(*) FILTER (WHERE c.status = 'delivered')::int AS delivered, coalesce(sum(c.attempts), 0)::int AS attempts,
              array(SELECT DISTINCT a.error FROM callback_attempts a JOIN callbacks h ON h.id = a.callback_id WHERE h.event_ref = $1) AS errors
         FROM callbacks c WHERE c.event_ref = $1`,
      [hanging.eventRef],
    );

    console.table([phaseRow("alone", alone), phaseRow(`beside ${HANGS}`, beside)]);
    console.log(`${HANGS}: ${hangingState[0].attempts} attempts, ${hangingState[0].delivered} delivered; errors: ${hangingState[0].errors.join(" | ")}`);
    const figure: Figure = {
      name: "Callback latency p99 beside a receiver whose name lookups hang",
      value: p99(beside),
      unit: "ms",
      target: TARGET_P99_MS,
      better: "lower",
      limit: p99(alone),
      limitName: "the same receiver's p99 with no hanging receiver, earlier in the same run",
      ratio: ratioOf(p99(beside), p99(alone)),
      ratioGoal: RATIO_GOAL,
    };
    console.log(`p99 beside the hanging receiver: ${figure.value} ms (target ≤ ${TARGET_P99_MS} ms); alone: ${describeLimit(figure)}`);
    passed = true;
    return [figure];
  } finally {
    await teardown.run();
  }
}

/** updateTickets for `ticketIds`, BATCH every BATCH_EVERY_MS; then each callback's latency once all are delivered or SETTLE_MS passed. */
async function steadyPhase(server: BenchServer, db: Client, ticketIds: string[]): Promise<PhaseResult> {
  const promises: string[] = [];
  const started = Date.now();
  for (let offset = 0; offset < ticketIds.length; offset += BATCH) {
    const actions = ticketIds
      .slice(offset, offset + BATCH)
      .map((ticketId) => ({ action: "updateTicket", data: { ticketId, uri: `https://meta.example.com/${ticketId}` } }));
    promises.push(...(await stream(server, actions)));
    const next = started + ((offset + BATCH) / BATCH) * BATCH_EVERY_MS;
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, next - Date.now())));
  }
  const deadline = Date.now() + SETTLE_MS;
  const query = `SELECT count(*) FILTER (WHERE status = 'delivered')::int AS delivered, count(*) FILTER (WHERE attempts > 1)::int AS retried,
                        array_agg(extract(epoch FROM delivered_at - created_at) * 1000) FILTER (WHERE status = 'delivered') AS latencies
                   FROM callbacks WHERE action_id = ANY($1::uuid[])`;
  for (;;) {
    const { rows } = await db.query<{ delivered: number; retried: number; latencies: number[] | null }>(query, [promises]);
    if (rows[0].delivered === promises.length || Date.now() > deadline) {
      const { rows: first } = await db.query<{ waits: number[] | null; durations: number[] | null }>(
        `SELECT array_agg(extract(epoch FROM a.started_at - c.created_at) * 1000) AS waits, array_agg(a.duration_ms) AS durations
           FROM callbacks c JOIN LATERAL (SELECT started_at, duration_ms FROM callback_attempts WHERE callback_id = c.id ORDER BY started_at LIMIT 1) a ON true
          WHERE c.action_id = ANY($1::uuid[])`,
        [promises],
      );
      return {
        callbacks: promises.length,
        delivered: rows[0].delivered,
        retried: rows[0].retried,
        latenciesMs: (rows[0].latencies ?? []).map(Number),
        claimWaitsMs: (first[0].waits ?? []).map(Number),
        attemptsMs: (first[0].durations ?? []).map(Number),
      };
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/** The p99 in whole ms; undelivered callbacks count as slower than every delivered one (so the figure is then a lower bound: SETTLE_MS and more). */
function p99(phase: PhaseResult): number {
  const undelivered = Array<number>(phase.callbacks - phase.delivered).fill(Number.POSITIVE_INFINITY);
  const value = quantile([...phase.latenciesMs, ...undelivered], 0.99);
  return Number.isFinite(value) ? Math.round(value) : SETTLE_MS;
}

function phaseRow(phase: string, result: PhaseResult): Record<string, string | number> {
  const undelivered = result.callbacks - result.delivered;
  return {
    phase,
    callbacks: result.callbacks,
    [`delivered within ${SETTLE_MS / 1000} s of the last`]: result.delivered,
    "retried (> 1 attempt)": result.retried,
    "p50 ms": result.latenciesMs.length > 0 ? Math.round(quantile(result.latenciesMs, 0.5)) : "-",
    "p99 ms": undelivered * 100 > result.callbacks ? `> ${SETTLE_MS} (undelivered)` : p99(result),
    "p99 wait for a claim ms": result.claimWaitsMs.length > 0 ? Math.round(quantile(result.claimWaitsMs, 0.99)) : "-",
    "p99 first attempt ms": result.attemptsMs.length > 0 ? Math.round(quantile(result.attemptsMs, 0.99)) : "-",
  };
}

/** An event to `callbackUrl` with `tickets` sales, confirmed as the chain writer would record them: a sale callback each, due at once. */
async function soldEvent(server: BenchServer, db: Client, callbackUrl: string, tickets: number): Promise<{ eventRef: string; ticketIds: string[] }> {
  const eventId = `bench-${randomBytes(4).toString("hex")}`;
  const ticketIds = Array.from({ length: tickets }, (_, i) => `${eventId}-ticket-${i}`);
  await stream(server, [{ action: "newEvent", data: { eventId, eventName: "Bench", currency: "EUR", callbackUrl } }]);
  for (let offset = 0; offset < tickets; offset += 5_000) {
    const sales = ticketIds
      .slice(offset, offset + 5_000)
      .map((ticketId) => ({ action: "soldTicket", data: { eventId, ticketId, price: "49.95", orderTime: 1_750_000_000 } }));
    await stream(server, sales);
  }
  await db.query("BEGIN");
  const { rows } = await db.query<{ id: string }>(
    `UPDATE chain_actions SET status = 'confirmed', tx_hash = '0x' || repeat('ab', 32), block_number = 1, updated_at = now()
      WHERE kind = 'sold' AND status <> 'confirmed' RETURNING id`,
  );
  await insertCallbacks(
    { query: (sql: string, params: unknown[]) => db.query(sql, params) } as unknown as EntityManager,
    rows.map((row) => row.id),
    31337n,
    "0x5FbDB2315678afecb367f032d93F642f64180aa3",
  );
  await db.query("COMMIT");
  const { rows: events } = await db.query<{ id: string }>(`SELECT id FROM events WHERE event_id = $1`, [eventId]);
  return { eventRef: events[0].id, ticketIds };
}

async function stream(server: BenchServer, actions: unknown[]): Promise<string[]> {
  const response = await fetch(`${server.baseUrl}/stream`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-api-key": server.apiKey },
    body: JSON.stringify(actions),
  });
  const text = await response.text();
  const items = (JSON.parse(text) as { data?: { status: string; actionPromise: string }[] }).data;
  if (!response.ok || !items || items.some((item) => item.status !== "success")) throw new Error(`/stream: ${response.status} ${text.slice(0, 500)}`);
  return items.map((item) => item.actionPromise);
}

async function waitUntil(db: Client, sql: string, what: string, timeoutMs = 120_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while ((await db.query<{ done: boolean }>(sql)).rows[0].done !== true) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}
