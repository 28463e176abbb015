import { randomBytes } from "node:crypto";
import { parseArgs } from "node:util";

import { Client } from "pg";

import { type Figure, meetsTarget, ratioOf, writeFigures } from "./figures";
import { type Layout, startNpmStartStack } from "./stack/npm-start-stack";
import { runDirectory } from "./stack/run-directory";
import { Teardown } from "./stack/teardown";
import { median, quantile } from "./stats";

/**
 * The API while the worker drains a backlog to the chain. The stack is `npm start` itself
 * (scripts/start.ts, on a playground Anvil of its own: chain id 31337, a block per transaction),
 * with callbacks to a local HTTPS receiver, in one of two layouts: `split`, as `npm start` runs by
 * default (the api and the worker as separate processes), and `single`, `npm start --
 * --single-process` (the API, the chain writer, the receipt watcher and the callback dispatcher in
 * one process), the layout before the split.
 *
 * Times, one request at a time, POST /api/v1/sold with 100 new tickets and POST /stream with 5000
 * soldTicket: idle (each request sent once everything before it is confirmed and called back), then
 * while 20,000 sales drain (queued by four untimed /stream requests; a request counts when the last
 * of them is not confirmed yet as it is sent), at most 20 /sold and 4 /stream per backlog, in
 * rounds until 60 and 12 are timed. Prints p50 and p99 of both, idle and draining, per
 * layout. `npm run bench:drain -- --layout split|single` runs one layout (default: both, split first).
 */
export const LAYOUTS: readonly Layout[] = ["split", "single"];
const LAYOUT_LABELS: Record<Layout, string> = {
  split: "npm start: api and worker processes",
  single: "npm start --single-process: one process",
};

const BACKLOG = 20_000;
const STREAM_SIZE = 5_000;
const SOLD_SIZE = 100;
const WARMUP_RUNS = 3;
const IDLE_RUNS = { sold: 30, stream: 8 };
const DRAINING_RUNS = { sold: 60, stream: 12 };
/**
 * Timed requests per backlog at most: each adds its sales behind the backlog (a /stream 5000 as
 * many as a quarter of it), which the round then waits for before the next one starts idle.
 */
const ROUND_RUNS = { sold: 20, stream: 4 };
/** While draining: this many /sold requests, then one /stream, and again. */
const SOLD_PER_STREAM = 5;
/** Backlogs queued at most to collect DRAINING_RUNS (each round queues BACKLOG sales and measures until they are confirmed). */
const MAX_ROUNDS = 12;
/** Far beyond any healthy run: a stalled pipeline fails the benchmark instead of hanging it. */
const DEADLINE_MS = 300_000;

export const SOLD_DRAINING_TARGET_MS = 60;
export const STREAM_DRAINING_TARGET_MS = 500;

type Kind = "sold" | "stream";

interface Latencies {
  idle: Record<Kind, number[]>;
  draining: Record<Kind, number[]>;
  /** Seconds from the first queued sale of each round until the last of its BACKLOG was seen confirmed. */
  drainSeconds: number[];
}

export function drainFigureName(kind: Kind): string {
  return kind === "sold"
    ? `POST /api/v1/sold 100 tickets while ${BACKLOG.toLocaleString("en-US")} sales drain to the chain (npm start), median`
    : `POST /stream 5000 soldTicket while ${BACKLOG.toLocaleString("en-US")} sales drain to the chain (npm start), median`;
}

/** Runs the benchmark in each layout, prints its tables and returns the split layout's figures. */
export async function runDrainBench(layouts: readonly Layout[] = LAYOUTS): Promise<Figure[]> {
  const results: { layout: Layout; latencies: Latencies }[] = [];
  for (const layout of layouts) {
    console.log(`\n-- ${LAYOUT_LABELS[layout]}`);
    results.push({ layout, latencies: await runLayout(layout) });
  }
  console.log(`\nThe API idle and while ${BACKLOG.toLocaleString("en-US")} sales drain to the chain, by layout (ms):`);
  console.table(
    results.flatMap(({ layout, latencies }) =>
      (["sold", "stream"] as const).map((kind) => ({
        layout: LAYOUT_LABELS[layout],
        request: kind === "sold" ? "POST /api/v1/sold, 100" : "POST /stream, 5000",
        "idle p50": round(median(latencies.idle[kind])),
        "idle p99": round(quantile(latencies.idle[kind], 0.99)),
        "draining p50": round(median(latencies.draining[kind])),
        "draining p99": round(quantile(latencies.draining[kind], 0.99)),
        "runs idle/draining": `${latencies.idle[kind].length}/${latencies.draining[kind].length}`,
        "target (draining p50)": `≤ ${kind === "sold" ? SOLD_DRAINING_TARGET_MS : STREAM_DRAINING_TARGET_MS}`,
      })),
    ),
  );
  for (const { layout, latencies } of results) {
    console.log(`${LAYOUT_LABELS[layout]}: each backlog of ${BACKLOG} drained in ${latencies.drainSeconds.map((s) => s.toFixed(1)).join(", ")} s`);
  }
  const split = results.find((result) => result.layout === "split");
  if (!split) return [];
  // The limit: the same request on the same stack, idle, in the same run.
  return (["sold", "stream"] as const).map((kind) => {
    const value = round(median(split.latencies.draining[kind]));
    const limit = round(median(split.latencies.idle[kind]));
    return {
      name: drainFigureName(kind),
      value,
      unit: "ms",
      target: kind === "sold" ? SOLD_DRAINING_TARGET_MS : STREAM_DRAINING_TARGET_MS,
      better: "lower",
      limit,
      limitName: "the same request, idle, median",
      ratio: ratioOf(value, limit),
    };
  });
}

const round = (value: number) => Math.round(value * 10) / 10;

async function runLayout(layout: Layout): Promise<Latencies> {
  const teardown = new Teardown();
  const logs = runDirectory(`bench-drain-${layout}`);
  let passed = false;
  teardown.add("process logs", async () => logs.finish(passed));
  try {
    const { baseUrl, apiKey, ticketeerId, receiverPort, db } = await startNpmStartStack(layout, logs, teardown);

    const api = new BenchApi(baseUrl, apiKey);
    const eventId = `drain-${randomBytes(4).toString("hex")}`;
    const created = await api.post("/api/v1/events", { eventId, ticketeerId, currency: "EUR", callbackUrl: `https://localhost:${receiverPort}/callbacks` });
    await waitUntilIdle(db, created);

    const latencies: Latencies = { idle: { sold: [], stream: [] }, draining: { sold: [], stream: [] }, drainSeconds: [] };
    // Idle: each request once the last one's actions are confirmed and called back.
    for (const kind of ["sold", "stream"] as const) {
      for (let i = 0; i < WARMUP_RUNS + IDLE_RUNS[kind]; i++) {
        const { ms, lastPromise } = await api.timed(kind, eventId);
        if (i >= WARMUP_RUNS) latencies.idle[kind].push(ms);
        await waitUntilIdle(db, lastPromise);
      }
    }
    // Draining: BACKLOG sales queued, then requests one after the other until the last of them is confirmed.
    for (let round = 0; round < MAX_ROUNDS && !enough(latencies); round++) {
      const queuedAt = performance.now();
      let backlogLast = "";
      for (let offset = 0; offset < BACKLOG; offset += STREAM_SIZE) backlogLast = await api.queue(eventId, STREAM_SIZE);
      let lastPromise = backlogLast;
      const sentInRound = { sold: 0, stream: 0 };
      for (let sent = 0; ; sent++) {
        if ((await statusOf(db, backlogLast)) === "confirmed") {
          latencies.drainSeconds.push((performance.now() - queuedAt) / 1000);
          break;
        }
        if (performance.now() - queuedAt > DEADLINE_MS) throw new Error(`a backlog of ${BACKLOG} sales did not drain within ${DEADLINE_MS / 1000} s`);
        const kind: Kind = sent % (SOLD_PER_STREAM + 1) === SOLD_PER_STREAM ? "stream" : "sold";
        if (sentInRound.sold >= ROUND_RUNS.sold && sentInRound.stream >= ROUND_RUNS.stream) {
          // This round's share is measured: the rest of the backlog drains untimed.
          await new Promise((resolve) => setTimeout(resolve, 100));
          continue;
        }
        if (sentInRound[kind] >= ROUND_RUNS[kind]) continue;
        const timed = await api.timed(kind, eventId);
        sentInRound[kind] += 1;
        latencies.draining[kind].push(timed.ms);
        lastPromise = timed.lastPromise;
      }
      console.log(
        `round ${round + 1}: ${BACKLOG} sales drained in ${latencies.drainSeconds.at(-1)?.toFixed(1)} s; draining runs so far: ` +
          `${latencies.draining.sold.length} /sold, ${latencies.draining.stream.length} /stream`,
      );
      await waitUntilIdle(db, lastPromise);
    }
    const failed = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM chain_actions WHERE status = 'error'`);
    if (failed.rows[0].n > 0) throw new Error(`${failed.rows[0].n} actions failed on chain`);
    passed = true;
    return latencies;
  } finally {
    await teardown.run();
  }
}

function enough(latencies: Latencies): boolean {
  return latencies.draining.sold.length >= DRAINING_RUNS.sold && latencies.draining.stream.length >= DRAINING_RUNS.stream;
}

/** The service's API, one request at a time; every answer must accept every item. */
class BenchApi {
  private tickets = 0;

  constructor(
    private readonly baseUrl: string,
    private readonly apiKey: string,
  ) {}

  /** Sends `body` to `path`; the promise of the last action it accepted. */
  async post(path: string, body: unknown): Promise<string> {
    const response = await fetch(this.baseUrl + path, {
      method: "POST",
      headers: { "content-type": "application/json", "x-api-key": this.apiKey },
      body: JSON.stringify(body),
    });
    const answer = (await response.json()) as Answer | Answer[] | { status: string; data: Answer[] };
    const entries = Array.isArray(answer) ? answer : "data" in answer ? answer.data : [answer];
    if (!response.ok || entries.some((entry) => entry.status !== "success")) throw new Error(`${path} refused items: ${JSON.stringify(answer).slice(0, 300)}`);
    const last = entries.at(-1);
    const promise = last?.txPromise ?? last?.actionPromise;
    if (!promise) throw new Error(`${path} answered no promise: ${JSON.stringify(answer).slice(0, 300)}`);
    return promise;
  }

  /** One timed request of `kind` with new tickets of `eventId`. */
  async timed(kind: Kind, eventId: string): Promise<{ ms: number; lastPromise: string }> {
    const body = kind === "sold" ? this.sales(eventId, SOLD_SIZE) : this.sales(eventId, STREAM_SIZE).map((data) => ({ action: "soldTicket", data }));
    const started = performance.now();
    const lastPromise = await this.post(kind === "sold" ? "/api/v1/sold" : "/stream", body);
    return { ms: performance.now() - started, lastPromise };
  }

  /** `count` sales of `eventId` through one untimed /stream request. */
  queue(eventId: string, count: number): Promise<string> {
    return this.post(
      "/stream",
      this.sales(eventId, count).map((data) => ({ action: "soldTicket", data })),
    );
  }

  private sales(eventId: string, count: number) {
    return Array.from({ length: count }, () => ({ eventId, ticketId: `drain-${++this.tickets}`, price: "49.95", orderTime: 1_750_000_000 }));
  }
}

interface Answer {
  status: string;
  txPromise?: string;
  actionPromise?: string;
}

async function statusOf(db: Client, promise: string): Promise<string> {
  const { rows } = await db.query<{ status: string }>(`SELECT status FROM chain_actions WHERE id = $1`, [promise]);
  if (rows.length === 0) throw new Error(`no action ${promise} in the ledger`);
  if (rows[0].status === "error") throw new Error(`action ${promise} failed on chain`);
  return rows[0].status;
}

/** Waits until the action `promise` (the last one sent: the writer goes in order) is confirmed and no callback waits. */
async function waitUntilIdle(db: Client, promise: string): Promise<void> {
  const deadline = Date.now() + DEADLINE_MS;
  for (;;) {
    if ((await statusOf(db, promise)) === "confirmed") {
      const { rows } = await db.query<{ waiting: boolean }>(`SELECT EXISTS (SELECT 1 FROM callbacks WHERE status = 'pending') AS waiting`);
      if (!rows[0].waiting) return;
    }
    if (Date.now() > deadline) throw new Error(`the service did not become idle within ${DEADLINE_MS / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const USAGE = "options: --layout split|single (default: both, one after the other)";

/** `npm run bench:drain [-- --layout split|single]`: the layouts to run. */
export function parseDrainOptions(argv: string[]): Layout[] {
  let layout: string | undefined;
  try {
    layout = parseArgs({ args: argv, options: { layout: { type: "string" } }, strict: true }).values.layout;
  } catch (error) {
    throw new Error(`${error instanceof Error ? error.message : String(error)}\n${USAGE}`, { cause: error });
  }
  if (layout === undefined) return [...LAYOUTS];
  if (!LAYOUTS.includes(layout as Layout)) throw new Error(`--layout must be split or single, got "${layout}"\n${USAGE}`);
  return [layout as Layout];
}

if (require.main === module) {
  Promise.resolve()
    .then(async () => {
      const figures = await runDrainBench(parseDrainOptions(process.argv.slice(2)));
      for (const figure of figures) console.log(`${meetsTarget(figure) ? "met   " : "missed"} ${figure.name}: ${figure.value} ${figure.unit}`);
      writeFigures(figures);
    })
    .catch((error: unknown) => {
      console.error(error);
      process.exitCode = 1;
    });
}
