import { randomBytes } from "node:crypto";
import { parseArgs } from "node:util";

import { Client } from "pg";

import { PRODUCTION_LIKE_ANVIL } from "../scripts/stack/chain-node";
import { waitForConfirmed } from "./e2e-bench";
import { describeLimit, type Figure, meetsRatioGoal, meetsTarget, ratioOf, writeFigures } from "./figures";
import { CallbackTally } from "./soak/callback-tally";
import { runDirectory } from "./stack/run-directory";
import { newOrganization, type Stack, startStack } from "./stack/stack";
import { median, quantile } from "./stats";

/**
 * Time to finality, as an integrator feels it: from a sale's answer (POST /api/v1/sold) until its
 * callback reaches the integrator's receiver, every callback's signature verified there with the
 * organization's secret (CallbackTally). A steady load of `rate` tickets per second for `seconds`,
 * on Anvil's 2-second blocks (bench/stack: chain id 80002, 45M gas, 30 gwei base fee), the api and
 * the worker in processes of their own as `npm start` runs them, once per CONFIRMATIONS depth, each
 * on a fresh stack.
 *
 * The floor beside each depth's figures: one block's wait to be included plus CONFIRMATIONS − 1
 * further blocks, the including block counting as the first confirmation. A sale answered just
 * after a block waits a whole block time for the next one, so the inclusion wait is counted as one
 * block time: floor = CONFIRMATIONS × block time (2, 6 and 24 s). The goal: p99 ≤ floor + 1 s at
 * every depth. Throughput at a depth: tickets made final per second, the sales divided by the time
 * from the first sale's answer to the last callback less the depth's own CONFIRMATIONS − 1 blocks
 * (what every sale waits at that depth, whatever the pace); its goal at the deepest depth: ≥ 0.9 of
 * depth 1's, in the same run.
 *
 * `npm run bench:finality -- --rate 500 --seconds 60 --depths 1,3,12` (the defaults); bench/results.json
 * is written only by a run with the defaults.
 */
const DEFAULTS = { rate: 500, seconds: 60, depths: [1, 3, 12] };
/** A request of /api/v1/sold every TICK_MS, carrying a tick's share of the rate. */
const TICK_MS = 100;
const BLOCK_MS = PRODUCTION_LIKE_ANVIL.blockTime! * 1000;
/** How far above the floor the p99 may be. */
const SLACK_MS = 1_000;
const THROUGHPUT_RATIO_GOAL = 0.9;
/** After the load: the longest the callbacks may take beyond the depth's own wait before the run fails. */
const DRAIN_GRACE_MS = 180_000;

export interface FinalityOptions {
  rate: number;
  seconds: number;
  depths: number[];
}

interface DepthResult {
  depth: number;
  tickets: number;
  floorMs: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  ticketsPerSecond: number;
  /** Sale batches the writer sent (nonces), and the blocks that carried them. */
  batches: number;
  blocks: number;
}

/** The floor at `depth`: one block's wait to be included, plus `depth − 1` blocks (see the file's comment). */
export function finalityFloorMs(depth: number, blockMs = BLOCK_MS): number {
  return depth * blockMs;
}

export async function runFinalityBench(options: FinalityOptions = DEFAULTS): Promise<Figure[]> {
  const results: DepthResult[] = [];
  for (const depth of options.depths) {
    console.log(`\n-- CONFIRMATIONS=${depth}: ${options.rate} tickets/s for ${options.seconds} s on Anvil's 2 s blocks`);
    results.push(await runDepth(depth, options));
  }
  const figures = figuresOf(results, options);
  console.log("\nTime to finality (sale answered → callback received and verified):");
  console.table(
    results.map((r) => ({
      CONFIRMATIONS: r.depth,
      tickets: r.tickets,
      "p50 ms": Math.round(r.p50Ms),
      "p99 ms": Math.round(r.p99Ms),
      "max ms": Math.round(r.maxMs),
      "floor ms": r.floorMs,
      "goal p99 ≤ ms": r.floorMs + SLACK_MS,
      met: r.p99Ms <= r.floorMs + SLACK_MS ? "yes" : "NO",
      "final tickets/s": Math.round(r.ticketsPerSecond),
      batches: r.batches,
      "blocks with sales": r.blocks,
    })),
  );
  const throughput = figures.find((figure) => figure.unit === "tickets/s");
  if (throughput) console.log(`Throughput at the deepest depth against depth 1's: ${describeLimit(throughput)}`);
  return figures;
}

function figuresOf(results: DepthResult[], options: FinalityOptions): Figure[] {
  const load = `Anvil 2 s blocks, ${options.rate} tickets/s`;
  const figures: Figure[] = results.flatMap((r) =>
    (["p50", "p99"] as const).map((q) => {
      const value = Math.round(q === "p50" ? r.p50Ms : r.p99Ms);
      return {
        name: `Time to finality ${q}, CONFIRMATIONS=${r.depth} (${load})`,
        value,
        unit: "ms",
        target: r.floorMs + SLACK_MS,
        better: "lower" as const,
        limit: r.floorMs,
        limitName: "one block's wait to be included plus CONFIRMATIONS − 1 blocks (CONFIRMATIONS × 2 s)",
        ratio: ratioOf(value, r.floorMs),
      };
    }),
  );
  const shallow = results.find((r) => r.depth === 1);
  const deepest = results.reduce<DepthResult | undefined>((deep, r) => (deep === undefined || r.depth > deep.depth ? r : deep), undefined);
  if (shallow && deepest && deepest.depth > 1) {
    figures.push({
      name: `Time to finality: tickets final per second at CONFIRMATIONS=${deepest.depth} (${load})`,
      value: Math.round(deepest.ticketsPerSecond),
      unit: "tickets/s",
      target: Math.round(THROUGHPUT_RATIO_GOAL * shallow.ticketsPerSecond),
      better: "higher",
      limit: Math.round(shallow.ticketsPerSecond),
      limitName: "the same at CONFIRMATIONS=1, in the same run",
      ratio: ratioOf(deepest.ticketsPerSecond, shallow.ticketsPerSecond),
      ratioGoal: THROUGHPUT_RATIO_GOAL,
    });
  }
  return figures;
}

async function runDepth(depth: number, options: FinalityOptions): Promise<DepthResult> {
  const logs = runDirectory(`bench-finality-${depth}`);
  const organization = newOrganization();
  const tally = new CallbackTally(organization.webhookSecret);
  let passed = false;
  let stack: Stack | undefined;
  let db: Client | undefined;
  try {
    stack = await startStack({
      logDir: logs.path,
      organization,
      chainProxy: false,
      chainNode: { kind: "anvil" },
      // As bench:e2e: a batch waits at most 300 ms for more, receipts are looked for every 200 ms.
      serviceEnv: { CONFIRMATIONS: String(depth), BATCH_MAX_WAIT_MS: "300", RECEIPT_POLL_MS: "200" },
      onCallback: (callback) => tally.receive(callback),
    });
    db = new Client({ connectionString: stack.database.url });
    await db.connect();
    const eventId = `finality-${randomBytes(4).toString("hex")}`;
    const created = await postJson<{ status: string }>(stack, "/api/v1/events", {
      eventId,
      ticketeerId: stack.ticketeerId,
      currency: "EUR",
      callbackUrl: stack.callbackUrl(),
    });
    if (created.status !== "success") throw new Error(`the event was not accepted: ${JSON.stringify(created)}`);
    await waitForConfirmed(db, 1);

    const answeredAt = await sellSteadily(stack, eventId, options);
    const floorMs = finalityFloorMs(depth);
    const received = await waitForCallbacks(tally, answeredAt, floorMs + DRAIN_GRACE_MS);
    if (tally.rejected.length > 0) throw new Error(`${tally.rejected.length} callbacks failed verification: ${tally.rejected[0].reason}`);
    if (stack.services.unexpectedExits.length > 0) throw new Error(`a service process exited on its own: ${JSON.stringify(stack.services.unexpectedExits)}`);

    const latencies = [...answeredAt].map(([promise, at]) => received.get(promise)! - at);
    const firstAnswer = [...answeredAt.values()].reduce((first, at) => Math.min(first, at), Infinity);
    const lastCallback = [...received.values()].reduce((last, at) => Math.max(last, at), 0);
    const seconds = (lastCallback - firstAnswer - (depth - 1) * BLOCK_MS) / 1000;
    const { rows } = await db.query<{ batches: number; blocks: number }>(
      `SELECT count(DISTINCT nonce)::int AS batches, count(DISTINCT block_number)::int AS blocks FROM chain_transactions
        WHERE status = 'confirmed' AND item_count > 1`,
    );
    passed = true;
    return {
      depth,
      tickets: latencies.length,
      floorMs,
      p50Ms: median(latencies),
      p99Ms: quantile(latencies, 0.99),
      maxMs: quantile(latencies, 1),
      ticketsPerSecond: latencies.length / seconds,
      batches: rows[0].batches,
      blocks: rows[0].blocks,
    };
  } finally {
    await db?.end().catch(() => undefined);
    await stack?.stop();
    logs.finish(passed);
  }
}

/**
 * A request of a tick's tickets every TICK_MS, on a fixed schedule (a slow answer delays none of the
 * next requests); when each sale's answer arrived, by its txPromise. Any refused sale throws.
 */
async function sellSteadily(stack: Stack, eventId: string, options: FinalityOptions): Promise<Map<string, number>> {
  const perTick = Math.max(1, Math.round((options.rate * TICK_MS) / 1000));
  const ticks = Math.round((options.seconds * 1000) / TICK_MS);
  const answeredAt = new Map<string, number>();
  const started = performance.now();
  const requests: Promise<void>[] = [];
  for (let tick = 0; tick < ticks; tick++) {
    const due = started + tick * TICK_MS;
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, due - performance.now())));
    const sales = Array.from({ length: perTick }, (_, i) => ({ eventId, ticketId: `t-${tick}-${i}`, price: "49.95", orderTime: 1_750_000_000 }));
    requests.push(
      postJson<{ status: string; txPromise: string }[]>(stack, "/api/v1/sold", sales).then((answer) => {
        const at = Date.now();
        if (!Array.isArray(answer) || answer.some((item) => item.status !== "success"))
          throw new Error(`not every sale was accepted: ${JSON.stringify(answer)}`);
        for (const item of answer) answeredAt.set(item.txPromise, at);
      }),
    );
    // Handled at once: the load goes on for a minute, and a rejection nobody handles ends the process before the teardown.
    requests[tick].catch(() => undefined);
  }
  await Promise.all(requests);
  const seconds = (performance.now() - started) / 1000;
  console.log(`sold ${answeredAt.size} tickets in ${seconds.toFixed(1)} s (${Math.round(answeredAt.size / seconds)} tickets/s)`);
  return answeredAt;
}

/** Until every sale's callback has arrived (its first delivery, by actionPromise); throws after `timeoutMs`. */
async function waitForCallbacks(tally: CallbackTally, answeredAt: Map<string, number>, timeoutMs: number): Promise<Map<string, number>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const received = new Map<string, number>();
    for (const seen of tally.byWebhookId.values()) if (answeredAt.has(seen.actionPromise)) received.set(seen.actionPromise, Math.min(...seen.receivedAt));
    if (received.size === answeredAt.size) return received;
    if (Date.now() > deadline) throw new Error(`only ${received.size} of ${answeredAt.size} callbacks arrived`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

async function postJson<T>(stack: Stack, path: string, body: unknown): Promise<T> {
  const response = await fetch(stack.baseUrl + path, {
    method: "POST",
    headers: { "content-type": "application/json", "x-api-key": stack.apiKey },
    body: JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`${path}: ${response.status} ${await response.text()}`);
  return (await response.json()) as T;
}

const USAGE = "options: --rate <tickets/s> (500) --seconds <s> (60) --depths <CONFIRMATIONS,…> (1,3,12)";

/** `npm run bench:finality [-- --rate N --seconds N --depths 1,3,12]`. */
export function parseFinalityOptions(argv: string[]): FinalityOptions {
  const { values } = parseArgs({ args: argv, options: { rate: { type: "string" }, seconds: { type: "string" }, depths: { type: "string" } }, strict: true });
  const positive = (text: string | undefined, fallback: number, name: string) => {
    if (text === undefined) return fallback;
    const value = Number(text);
    if (!Number.isInteger(value) || value < 1) throw new Error(`--${name} must be a positive integer, got "${text}"\n${USAGE}`);
    return value;
  };
  return {
    rate: positive(values.rate, DEFAULTS.rate, "rate"),
    seconds: positive(values.seconds, DEFAULTS.seconds, "seconds"),
    depths: values.depths === undefined ? DEFAULTS.depths : values.depths.split(",").map((depth) => positive(depth.trim(), 0, "depths")),
  };
}

const isDefault = (options: FinalityOptions) =>
  options.rate === DEFAULTS.rate && options.seconds === DEFAULTS.seconds && options.depths.join() === DEFAULTS.depths.join();

if (require.main === module) {
  const options = parseFinalityOptions(process.argv.slice(2));
  runFinalityBench(options)
    .then((figures) => {
      for (const figure of figures) if (!meetsTarget(figure) || meetsRatioGoal(figure) === false) console.log(`goal missed: ${figure.name}`);
      if (isDefault(options)) writeFigures(figures);
      else console.log("A shortened run: bench/results.json not written (only a run with the defaults writes it).");
    })
    .catch((error: unknown) => {
      console.error(error);
      process.exitCode = 1;
    });
}
