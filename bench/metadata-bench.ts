import { randomBytes } from "node:crypto";

import { Client } from "pg";

import { freePort } from "../scripts/stack/ports";
import { generateTestTls, writeTestTls } from "../scripts/stack/local-tls";
import { type RpcCalls, startProductionNodeProxy } from "../scripts/stack/production-node-proxy";
import { waitForHealth } from "../scripts/stack/service-process";
import { startCallbackSink } from "./callback-sink";
import { describeLimit, type Figure, meetsTarget, ratioOf, writeFigures } from "./figures";
import { poster } from "./poster";
import { CHAIN_NODE_LABELS, startBenchChain } from "./stack/bench-chain";
import { createBenchDatabase } from "./stack/bench-database";
import { spawnBenchService } from "./stack/bench-service";
import { runDirectory } from "./stack/run-directory";
import { Teardown } from "./stack/teardown";
import { median, quantile } from "./stats";

/**
 * The public token metadata, `GET /tokens/{tokenId}`, as a marketplace crawls it: 1,000 tokens of one
 * event in a row, never read before (cold), by 8 clients at once, then the same 1,000 again (warm).
 * The service runs as an api process (the one answering metadata) and a worker process on a fresh
 * database, on Anvil as a production-like chain (2-second blocks, chain id 80002); the api reaches
 * the node through the production node proxy of the tests, which counts the calls, the worker directly, so
 * the calls counted during a crawl are the metadata's. Prints p50, p99 and requests per second of
 * each crawl and the node calls per request beside the targets, and beside the limit: the same
 * 1,000 requests from 8 clients to `GET /health/live` of the same api process, which reads neither
 * the chain nor the database.
 */
const TOKENS = 1_000;
/** A second event's tokens, crawled first: the service's first metadata requests (its code warming up, the first head) are not timed. */
const WARMUP_TOKENS = 100;
const CLIENTS = 8;

const COLD_CALLS_TARGET = 0.1;
const WARM_CALLS_TARGET = 0.01;
const WARM_P99_TARGET_MS = 50;
/** Far beyond any healthy run: a stalled pipeline fails the benchmark instead of hanging it. */
const DEADLINE_MS = 300_000;

const PRICE = "49.95";

export const metadataFigureName = (crawl: "cold" | "warm", what: "node calls" | "p99") =>
  `Token metadata: GET /tokens/{tokenId}, ${TOKENS.toLocaleString("en-US")} tokens ${crawl === "cold" ? "read for the first time" : "read again"} by ${CLIENTS} clients, ${
    what === "node calls" ? "node calls per request" : "request p99"
  }`;

interface Crawl {
  name: string;
  requests: number;
  seconds: number;
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  /** The api's calls to the node during the crawl; null for the limit, whose node calls are not counted. */
  node: RpcCalls | null;
}

/** Runs the benchmark, prints its tables and returns its figures; everything it started is stopped. */
export async function runMetadataBench(): Promise<Figure[]> {
  const teardown = new Teardown();
  const logs = runDirectory("bench-metadata");
  let passed = false;
  teardown.add("process logs", async () => logs.finish(passed));
  try {
    const chain = await startBenchChain(logs.path, { kind: "anvil" });
    teardown.add("chain node", chain.stop);
    const counter = await startProductionNodeProxy(chain.url);
    teardown.add("JSON-RPC proxy", () => counter.close());
    const tls = writeTestTls(await generateTestTls());
    teardown.add("test TLS files", async () => tls.remove());
    const receiver = await startCallbackSink(tls.certFile, tls.keyFile);
    teardown.add("callback receiver", receiver.close);
    const database = await createBenchDatabase("bench");
    teardown.add("database", database.drop);

    const apiKey = `bench_${randomBytes(24).toString("hex")}`;
    const ticketeerId = "bench-organization";
    const env = {
      ...chain.env,
      DATABASE_URL: database.url,
      APP_MODE: "development",
      DEV_TICKETEER_ID: ticketeerId,
      DEV_API_KEY: apiKey,
      REDIS_KEY_PREFIX: `trs-bench-${randomBytes(4).toString("hex")}`,
      RATE_LIMIT_REQUESTS: "1000000",
      // A crawler from one address: what is measured is the answer, not the per-IP limit.
      METADATA_RATE_LIMIT_REQUESTS: "1000000",
      LOG_LEVEL: "warn",
      BATCH_MAX_WAIT_MS: "300",
      RECEIPT_POLL_MS: "200",
      CALLBACK_ALLOW_HOSTS: "localhost",
      NODE_EXTRA_CA_CERTS: tls.caFile,
    };
    // The api first: it migrates the database and seeds the organization.
    const apiPort = await freePort();
    const api = spawnBenchService("api", { ...env, CHAIN_RPC_URL: counter.url, PORT: String(apiPort) }, logs.path);
    teardown.add("api", () => api.stop("SIGTERM"));
    const baseUrl = `http://127.0.0.1:${apiPort}`;
    await waitForHealth(baseUrl, api);
    const workerPort = await freePort();
    const worker = spawnBenchService("worker", { ...env, CHAIN_RPC_URL: chain.url, PORT: String(workerPort) }, logs.path);
    teardown.add("worker", () => worker.stop("SIGTERM"));
    await waitForHealth(`http://127.0.0.1:${workerPort}`, worker);
    const db = new Client({ connectionString: database.url });
    await db.connect();
    teardown.add("database client", () => db.end());

    // Two events and their sales, until confirmed on chain and called back: the worker is idle during the crawls.
    const crawled = `bench-${randomBytes(4).toString("hex")}`;
    const warmup = `${crawled}-warmup`;
    const callbackUrl = `https://localhost:${receiver.port}/callbacks`;
    const post = poster(baseUrl, apiKey);
    for (const eventId of [warmup, crawled]) {
      await post("/api/v1/events", { eventId, ticketeerId, eventName: `Bench ${eventId}`, currency: "EUR", callbackUrl });
    }
    await post("/stream", [...soldActions(warmup, WARMUP_TOKENS), ...soldActions(crawled, TOKENS)]);
    const setupStarted = performance.now();
    await waitForFinal(db, 2 + WARMUP_TOKENS + TOKENS);
    console.log(
      `${WARMUP_TOKENS + TOKENS} tickets of 2 events confirmed on ${CHAIN_NODE_LABELS.anvil} and called back in ${((performance.now() - setupStarted) / 1000).toFixed(1)} s`,
    );
    const warmupTokens = await tokensOf(db, warmup);
    const tokens = await tokensOf(db, crawled);
    if (tokens.length !== TOKENS) throw new Error(`the ledger holds ${tokens.length} tickets of ${crawled}, not ${TOKENS}`);

    const metadataUrl = (token: LedgerToken) => `${baseUrl}/tokens/${token.tokenId}`;
    await crawl(warmupTokens, metadataUrl, checkMetadata);
    await crawl(warmupTokens, () => `${baseUrl}/health/live`, checkOk);

    counter.resetCounts();
    const cold = { name: `cold: ${TOKENS} tokens, first read`, ...(await crawl(tokens, metadataUrl, checkMetadata)), node: counter.counted() };
    counter.resetCounts();
    const warm = { name: `warm: the same ${TOKENS} again`, ...(await crawl(tokens, metadataUrl, checkMetadata)), node: counter.counted() };
    // The limit: the same requests to an endpoint of the same process that reads neither the chain nor the database.
    const limit = { name: `limit: GET /health/live ×${TOKENS}`, ...(await crawl(tokens, () => `${baseUrl}/health/live`, checkOk)), node: null };

    const figures = figuresOf(cold, warm, limit);
    report([cold, warm, limit], figures);
    passed = true;
    return figures;
  } finally {
    await teardown.run();
  }
}

function figuresOf(cold: Crawl, warm: Crawl, limit: Crawl): Figure[] {
  const perRequest = (crawl: Crawl) => Math.round(((crawl.node?.calls ?? 0) / crawl.requests) * 1000) / 1000;
  return [
    { name: metadataFigureName("cold", "node calls"), value: perRequest(cold), unit: "calls/request", target: COLD_CALLS_TARGET, better: "lower" },
    { name: metadataFigureName("warm", "node calls"), value: perRequest(warm), unit: "calls/request", target: WARM_CALLS_TARGET, better: "lower" },
    {
      name: metadataFigureName("warm", "p99"),
      value: round(warm.p99Ms),
      unit: "ms",
      target: WARM_P99_TARGET_MS,
      better: "lower",
      limit: round(limit.p99Ms),
      limitName: `GET /health/live of the same api process, the same ${TOKENS} requests from ${CLIENTS} clients: p99`,
      ratio: ratioOf(warm.p99Ms, limit.p99Ms),
    },
  ];
}

function report(crawls: Crawl[], figures: Figure[]): void {
  const [cold, warm, limit] = crawls;
  const targets = new Map<Crawl, string>([
    [cold, `node calls/request ≤ ${COLD_CALLS_TARGET}`],
    [warm, `node calls/request ≤ ${WARM_CALLS_TARGET}, p99 ≤ ${WARM_P99_TARGET_MS} ms`],
  ]);
  const met = new Map<Crawl, string>([
    [cold, meetsTarget(figures[0]) ? "yes" : "NO"],
    [warm, meetsTarget(figures[1]) && meetsTarget(figures[2]) ? "yes" : "NO"],
  ]);
  console.log(`GET /tokens/{tokenId} by ${CLIENTS} clients at once (each sends its next request when the last is answered), and the limit:`);
  console.table(
    crawls.map((crawl) => ({
      crawl: crawl.name,
      requests: crawl.requests,
      s: crawl.seconds.toFixed(2),
      "requests/s": Math.round(crawl.requestsPerSecond),
      "p50 ms": crawl.p50Ms.toFixed(1),
      "p99 ms": crawl.p99Ms.toFixed(1),
      "max ms": crawl.maxMs.toFixed(1),
      "node calls": crawl.node?.calls ?? "",
      "calls/request": crawl.node ? (crawl.node.calls / crawl.requests).toFixed(3) : "",
      target: targets.get(crawl) ?? "",
      met: met.get(crawl) ?? "",
    })),
  );
  console.log("Beside the limit (the same process's GET /health/live, the same requests and clients), crawl / limit:");
  console.table(
    [cold, warm].map((crawl) => ({
      crawl: crawl.name,
      "p50 ratio": ratioOf(crawl.p50Ms, limit.p50Ms),
      "p99 ratio": ratioOf(crawl.p99Ms, limit.p99Ms),
      "requests/s ratio": ratioOf(crawl.requestsPerSecond, limit.requestsPerSecond),
    })),
  );
  console.log(`Warm p99 beside its limit: ${describeLimit(figures[2])}`);
  console.log("The api's calls to the node during each crawl, by method (HTTP requests: a batch of calls is one):");
  console.table(
    [cold, warm].map((crawl) => ({
      crawl: crawl.name,
      "HTTP requests": crawl.node?.requests ?? 0,
      calls: crawl.node?.calls ?? 0,
      ...Object.fromEntries(crawl.node?.byMethod ?? []),
    })),
  );
}

interface LedgerToken {
  tokenId: string;
  serial: number;
  uri: string;
}

async function tokensOf(db: Client, eventId: string): Promise<LedgerToken[]> {
  const { rows } = await db.query<{ token_id: string; serial: string; uri: string }>(
    `SELECT t.token_id::text, t.serial, t.uri FROM tickets t JOIN events e ON e.id = t.event_ref WHERE e.event_id = $1 ORDER BY t.serial`,
    [eventId],
  );
  return rows.map((row) => ({ tokenId: row.token_id, serial: Number(row.serial), uri: row.uri }));
}

/**
 * `CLIENTS` clients at once, each taking the next token in order and sending its request when its
 * last one is answered, as a crawler walking the collection does. Every answer is read and checked.
 */
async function crawl(
  tokens: readonly LedgerToken[],
  urlOf: (token: LedgerToken) => string,
  check: (token: LedgerToken, status: number, body: string) => string | null,
): Promise<Omit<Crawl, "name" | "node">> {
  const latencies: number[] = [];
  const failures: string[] = [];
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CLIENTS }, async () => {
      while (next < tokens.length) {
        const token = tokens[next++];
        const url = urlOf(token);
        const sent = performance.now();
        const response = await fetch(url);
        const body = await response.text();
        latencies.push(performance.now() - sent);
        const failure = check(token, response.status, body);
        if (failure) failures.push(`GET ${url}: ${failure}`);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  if (failures.length > 0) throw new Error(`${failures.length} of ${tokens.length} answers wrong, the first:\n${failures.slice(0, 5).join("\n")}`);
  return {
    requests: latencies.length,
    seconds,
    requestsPerSecond: latencies.length / seconds,
    p50Ms: median(latencies),
    p99Ms: quantile(latencies, 0.99),
    maxMs: Math.max(...latencies),
  };
}

const checkOk = (_token: LedgerToken, status: number, body: string): string | null => (status === 200 ? null : `${status} ${body.slice(0, 300)}`);

/** The token's own metadata: its serial, the uri it was sold with as its image, valid, its sale price. */
function checkMetadata(token: LedgerToken, status: number, body: string): string | null {
  if (status !== 200) return `${status} ${body.slice(0, 300)}`;
  const metadata = JSON.parse(body) as { name: string; image?: string; attributes: { trait_type: string; value: string | number }[] };
  const attribute = (name: string) => metadata.attributes.find((entry) => entry.trait_type === name)?.value;
  const wrong = [
    metadata.name.endsWith(` #${token.serial}`) ? null : `name "${metadata.name}"`,
    metadata.image === token.uri ? null : `image ${metadata.image} instead of ${token.uri}`,
    attribute("Ticket number") === token.serial ? null : `Ticket number ${attribute("Ticket number")}`,
    attribute("State") === "Valid" ? null : `State ${attribute("State")}`,
    attribute("Last price") === Number(PRICE) ? null : `Last price ${attribute("Last price")}`,
  ].filter((entry) => entry !== null);
  return wrong.length === 0 ? null : `${wrong.join(", ")} in ${body.slice(0, 300)}`;
}

const round = (value: number) => Math.round(value * 10) / 10;

function soldActions(eventId: string, count: number) {
  return Array.from({ length: count }, (_, i) => ({
    action: "soldTicket",
    data: { eventId, ticketId: `${eventId}-ticket-${i + 1}`, price: PRICE, orderTime: 1_750_000_000, uri: `ipfs://bench/${eventId}/${i + 1}.json` },
  }));
}

/** Until `count` actions are confirmed and each one's callback delivered; an action in error fails the run. */
async function waitForFinal(db: Client, count: number): Promise<void> {
  const deadline = Date.now() + DEADLINE_MS;
  for (;;) {
    const { rows } = await db.query<{ confirmed: number; failed: number; delivered: number }>(
      `SELECT (SELECT count(*) FILTER (WHERE status = 'confirmed') FROM chain_actions)::int AS confirmed,
              (SELECT count(*) FILTER (WHERE status = 'error') FROM chain_actions)::int AS failed,
              (SELECT count(*) FILTER (WHERE status = 'delivered') FROM callbacks)::int AS delivered`,
    );
    const { confirmed, failed, delivered } = rows[0];
    if (failed > 0) throw new Error(`${failed} actions failed on chain`);
    if (confirmed >= count && delivered >= count) return;
    if (Date.now() > deadline) throw new Error(`${confirmed} of ${count} actions confirmed, ${delivered} called back within ${DEADLINE_MS / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

if (require.main === module) {
  Promise.resolve()
    .then(async () => {
      const figures = await runMetadataBench();
      for (const figure of figures) console.log(`${meetsTarget(figure) ? "met   " : "missed"} ${figure.name}: ${figure.value} ${figure.unit}`);
      writeFigures(figures);
    })
    .catch((error: unknown) => {
      console.error(error);
      process.exitCode = 1;
    });
}
