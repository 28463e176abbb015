import { randomBytes } from "node:crypto";
import { parseArgs } from "node:util";

import { Client } from "pg";

import { startBenchServer } from "./bench-server";
import { measureCopyLimit } from "./copy-limit";
import { soldActions, waitForConfirmed, waitForDelivered } from "./e2e-bench";
import { machineInfo } from "./machine";
import { acceptedTickets, checkLedger, CLIENTS, load, seller, TICKETS_PER_REQUEST, WARMUP_SECONDS } from "./onsale-bench";
import { poster } from "./poster";
import { CpuSampler, type CpuUsage, cpuRows } from "./stack/cpu-usage";
import { runDirectory } from "./stack/run-directory";
import { newOrganization, type Stack, startStack } from "./stack/stack";
import { median, quantile } from "./stats";

/**
 * Scale-out figures (docs/operators/scaling-out.md), each configuration on a fresh stack
 * (bench/stack: Anvil as the production-like chain of bench:e2e — chain id 80002, 2-second blocks,
 * 45M gas limit, 30 gwei base fee —, one api and N worker processes, a Redis of its own, a fresh
 * database, the callback receiver in a process of its own):
 *
 * - **chain**: tickets confirmed per second end to end with 1, 2 and 4 signers and with 1 and 2
 *   worker processes: sales of 4 events (every event belongs to the signer its registry index
 *   modulo the signer count names, so 4 events give each of up to 4 signers its share) through
 *   `/stream` in requests of 5000, timed from the first request until all are confirmed, as
 *   bench:e2e does. Beside it: which worker process signed what, and how full the blocks were.
 * - **api**: tickets accepted per second with 1 and 2 api processes on one database, the on-sale's
 *   load (10 clients each POSTing /api/v1/sold with 100 new tickets, the next when answered) with
 *   the clients spread over the apis as a load balancer would; one worker writes to the chain meanwhile.
 *
 * For every configuration it prints the CPU each process group used while measured (PostgreSQL,
 * each service process, Anvil, …) and, for context, PostgreSQL's own `COPY` of the rows of a
 * `/stream` request of 5000 in the same stack (bench/copy-limit.ts): the machine's speed at the time.
 * Not part of `npm run bench` (several minutes); `--part`, `--signers`, `--workers`, `--apis` choose
 * what runs (see USAGE).
 */
const EVENTS = 4;
const PER_REQUEST = 5_000;
const COPY_RUNS = 3;

interface ScaleOptions {
  parts: ("chain" | "api")[];
  signers: number[];
  workers: number[];
  apis: number[];
  tickets: number;
  seconds: number;
  events: number;
  /** Print the chain part's blocks one by one: which signer's batches each holds, and what waited in the pool. */
  blocks: boolean;
}

type Measured<T> = T & { copyMs: number };

interface ChainResult {
  signers: number;
  workers: number;
  seconds: number;
  ticketsPerSecond: number;
  acceptedIn: number;
  deliveredAt: number;
  batches: number;
  bySender: string;
  blocks: number;
  blockFill: number;
  ceiling: number;
  cpu: CpuUsage;
}

interface ApiResult {
  apis: number;
  requests: number;
  tickets: number;
  ticketsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  byApi: string;
  cpu: CpuUsage;
}

async function main(options: ScaleOptions): Promise<void> {
  const machine = await machineInfo();
  console.log(`${machine.date}, ${machine.cores} cores (${machine.cpuModel}), Node ${machine.node}, PostgreSQL ${machine.postgres}`);
  if (options.parts.includes("chain")) {
    const results: Measured<ChainResult>[] = [];
    for (const workers of options.workers) {
      for (const signers of options.signers) {
        console.log(`\n-- chain: ${signers} signer(s), ${workers} worker process(es), ${options.tickets} sales of ${EVENTS} events`);
        results.push(await withCopyTime(() => runChain(signers, workers, options.tickets, options.blocks)));
      }
    }
    console.log(`\nConfirmed on Anvil (2 s blocks, 45M gas), ${options.tickets} sales of ${EVENTS} events through /stream:`);
    console.table(
      results.map((r) => ({
        signers: r.signers,
        workers: r.workers,
        "all accepted in s": r.acceptedIn.toFixed(1),
        "all confirmed in s": r.seconds.toFixed(1),
        "tickets/s": Math.round(r.ticketsPerSecond),
        "/ ceiling": (r.ticketsPerSecond / r.ceiling).toFixed(2),
        "last callback at s": r.deliveredAt.toFixed(1),
        "batches by process": r.bySender,
        "blocks with a batch": r.blocks,
        "block gas used": `${Math.round(r.blockFill * 100)}%`,
        "block gas ceiling, tickets/s": Math.round(r.ceiling),
        ...machineColumns(r),
      })),
    );
  }
  if (options.parts.includes("api")) {
    const results: Measured<ApiResult>[] = [];
    for (const apis of options.apis) {
      console.log(
        `\n-- api: ${apis} api process(es) on one database, ${CLIENTS} clients × ${TICKETS_PER_REQUEST} tickets a request, ${options.events} event(s)`,
      );
      results.push(await withCopyTime(() => runApi(apis, options.seconds, options.events)));
    }
    console.log(
      `\nAccepted (/api/v1/sold, ${CLIENTS} clients × ${TICKETS_PER_REQUEST} tickets, ${options.events} event(s), ${options.seconds} s), one database:`,
    );
    console.table(
      results.map((r) => ({
        "api processes": r.apis,
        requests: r.requests,
        "tickets/s": Math.round(r.ticketsPerSecond),
        "p50 ms": Math.round(r.p50Ms),
        "p99 ms": Math.round(r.p99Ms),
        "tickets by api": r.byApi,
        ...machineColumns(r),
      })),
    );
  }
}

/** `measure`'s result, and the machine's COPY time right after it. */
async function withCopyTime<T>(measure: () => Promise<T>): Promise<Measured<T>> {
  const result = await measure();
  return { ...result, copyMs: await machineCopyTime() };
}

/**
 * The machine's speed at the time: PostgreSQL's own COPY of the rows a `/stream` request of 5000
 * sales wrote (bench/copy-limit.ts, as bench:api's limit). On an api process of its own without a
 * chain: a writer would update the rows and their transaction ids, which is how the copy finds them.
 */
async function machineCopyTime(): Promise<number> {
  const logs = runDirectory("bench-scale-copy");
  let passed = false;
  const server = await startBenchServer({}, logs.path);
  try {
    const post = poster(server.baseUrl, server.apiKey);
    const eventId = `copy-${randomBytes(4).toString("hex")}`;
    await post("/api/v1/events", { eventId, ticketeerId: server.ticketeerId, currency: "EUR", callbackUrl: "https://bench.example.com/cb" });
    for (let run = 0; run < COPY_RUNS; run++) await post("/stream", soldActions(eventId, run * PER_REQUEST, PER_REQUEST));
    const copy = await measureCopyLimit(server.databaseUrl, PER_REQUEST, COPY_RUNS);
    console.log(
      `PostgreSQL's COPY of a /stream request's rows (${copy.tables.map(({ table, rows }) => `${table} ${rows}`).join(", ")}), median of ${copy.runs}: ${copy.medianMs.toFixed(1)} ms`,
    );
    passed = true;
    return copy.medianMs;
  } finally {
    await server.stop();
    logs.finish(passed);
  }
}

/** A fresh stack on Anvil's 2-second blocks; `body` runs with it and a client of its database, and everything is stopped after. */
async function withStack<T>(
  purpose: string,
  shape: { signers: number; workers: number; apis: number },
  body: (stack: Stack, db: Client) => Promise<T>,
): Promise<T> {
  const logs = runDirectory(`bench-scale-${purpose}`);
  let passed = false;
  let stack: Stack | undefined;
  let db: Client | undefined;
  try {
    stack = await startStack({
      logDir: logs.path,
      organization: newOrganization(),
      chainProxy: false,
      chainNode: { kind: "anvil" },
      ...shape,
      receiverProcess: true,
      // As bench:e2e: a batch waits at most 300 ms for more, receipts are looked for every 200 ms.
      serviceEnv: { BATCH_MAX_WAIT_MS: "300", RECEIPT_POLL_MS: "200" },
    });
    db = new Client({ connectionString: stack.database.url });
    await db.connect();
    const result = await body(stack, db);
    if (stack.services.unexpectedExits.length > 0) throw new Error(`a service process exited on its own: ${JSON.stringify(stack.services.unexpectedExits)}`);
    passed = true;
    return result;
  } finally {
    await db?.end().catch(() => undefined);
    await stack?.stop();
    logs.finish(passed);
  }
}

async function registerEvents(stack: Stack, count: number): Promise<string[]> {
  const post = poster(stack.baseUrl, stack.apiKey);
  const run = randomBytes(3).toString("hex");
  const eventIds = Array.from({ length: count }, (_, i) => `scale-${run}-${i}`);
  for (const eventId of eventIds) await post("/api/v1/events", { eventId, ticketeerId: stack.ticketeerId, currency: "EUR", callbackUrl: stack.callbackUrl() });
  return eventIds;
}

function sampler(stack: Stack): CpuSampler {
  return new CpuSampler(() => stack.services.processes().map((service) => ({ name: service.name.replace(/\.restart-\d+$/, ""), pid: service.pid })));
}

/** The columns every configuration prints beside its figure: PostgreSQL's COPY time and each process group's CPU in the same run. */
function machineColumns(r: { copyMs: number; cpu: CpuUsage }): Record<string, string | number> {
  return {
    "COPY of a /stream's 5000 rows, ms": Math.round(r.copyMs),
    "cores: postgres": coresOf(r.cpu, "postgres"),
    "api(s)": coresOf(r.cpu, "api"),
    "worker(s)": coresOf(r.cpu, "worker"),
    anvil: coresOf(r.cpu, "anvil"),
    "other work": coresOf(r.cpu, "rest of the machine"),
    "machine busy": `${Math.round(r.cpu.machineBusy * 100)}%`,
  };
}

/** The cores the groups named `name` (or `name-K`) used together. */
function coresOf(cpu: CpuUsage, name: string): string {
  const groups = cpu.groups.filter((group) => group.group === name || group.group.startsWith(`${name}-`));
  return groups.reduce((sum, group) => sum + group.cores, 0).toFixed(2);
}

function printCpu(cpu: CpuUsage): void {
  console.log(`CPU while measured (${cpu.wallSeconds.toFixed(1)} s):`);
  console.table(cpuRows(cpu));
}

async function runChain(signers: number, workers: number, tickets: number, printBlocks: boolean): Promise<ChainResult> {
  return withStack(`chain-${signers}s-${workers}w`, { signers, workers, apis: 1 }, async (stack, db) => {
    const eventIds = await registerEvents(stack, EVENTS);
    await waitForConfirmed(db, EVENTS);
    const post = poster(stack.baseUrl, stack.apiKey);
    const cpu = sampler(stack);
    cpu.start();
    const started = performance.now();
    const startedAtMs = Date.now();
    for (let offset = 0, request = 0; offset < tickets; offset += PER_REQUEST, request++) {
      await post("/stream", soldActions(eventIds[request % EVENTS], offset, Math.min(PER_REQUEST, tickets - offset)));
    }
    const acceptedIn = (performance.now() - started) / 1000;
    await waitForConfirmed(db, EVENTS + tickets);
    const seconds = (performance.now() - started) / 1000;
    const usage = cpu.stop();
    await waitForDelivered(db, EVENTS + tickets);
    const deliveredAt = (performance.now() - started) / 1000;
    printCpu(usage);

    let onChain = 0n;
    for (let index = 1n; index <= BigInt(EVENTS); index++) onChain += (await stack.chain.registry.eventRecord(index)).ticketsSold;
    if (onChain !== BigInt(tickets)) throw new Error(`the registry counts ${onChain} tickets sold, not ${tickets}`);

    const { rows: sent } = await db.query<{ sender: string; signer: string; batches: number; tickets: number }>(
      `SELECT coalesce(s.sender, '?') AS sender, t.signer, count(*)::int AS batches, sum(t.item_count)::int AS tickets
         FROM chain_transactions t LEFT JOIN bench_transaction_senders s ON s.tx_id = t.id
        WHERE t.status = 'confirmed' AND t.item_count > 1 AND t.created_at >= $1
        GROUP BY 1, 2 ORDER BY 1, 2`,
      [new Date(startedAtMs)],
    );
    console.log("Sale batches confirmed, by the process that signed them and the signer:");
    console.table(sent);
    const bySender = new Map<string, number>();
    for (const row of sent) bySender.set(row.sender, (bySender.get(row.sender) ?? 0) + row.batches);

    const blocks = await blockFill(stack, db, startedAtMs);
    if (printBlocks) await printBlockStructure(stack, db, startedAtMs);
    console.log(
      `Blocks from the first sale batch to the last: ${blocks.blocks}, ${Math.round(blocks.fill * 100)}% of their gas used on average; ` +
        `${Math.round(blocks.gasPerTicket)} gas per ticket: the 45M gas limit holds ${Math.round(blocks.ceiling * 2)} tickets a block, ${Math.round(blocks.ceiling)}/s`,
    );

    return {
      signers,
      workers,
      seconds,
      ticketsPerSecond: tickets / seconds,
      acceptedIn,
      deliveredAt,
      batches: sent.reduce((sum, row) => sum + row.batches, 0),
      bySender: [...bySender.entries()].map(([sender, count]) => `${sender} ${count}`).join(", "),
      blocks: blocks.blocks,
      blockFill: blocks.fill,
      ceiling: blocks.ceiling,
      cpu: usage,
    };
  });
}

/**
 * The blocks from the first sale batch's to the last's (a backlog waited all that time): how much of
 * their gas was used, and what the gas limit allows at the batches' gas per ticket and a block every 2 s.
 */
async function blockFill(stack: Stack, db: Client, sinceMs: number) {
  const { rows } = await db.query<{ first: string; last: string; gas: string; tickets: string }>(
    `SELECT min(block_number)::text AS first, max(block_number)::text AS last, sum(gas_used)::text AS gas, sum(item_count)::text AS tickets
       FROM chain_transactions WHERE status = 'confirmed' AND item_count > 1 AND created_at >= $1`,
    [new Date(sinceMs)],
  );
  const [first, last] = [Number(rows[0].first), Number(rows[0].last)];
  let used = 0n;
  let limit = 0n;
  for (let number = first; number <= last; number++) {
    const block = await stack.chain.provider.getBlock(number);
    if (!block) throw new Error(`block ${number} not found`);
    used += block.gasUsed;
    limit += block.gasLimit;
  }
  const blocks = last - first + 1;
  const gasPerTicket = Number(rows[0].gas) / Number(rows[0].tickets);
  const BLOCK_SECONDS = 2;
  return { blocks, fill: Number(used) / Number(limit), gasPerTicket, ceiling: Number(limit) / blocks / gasPerTicket / BLOCK_SECONDS };
}

/**
 * Block by block from the first sale batch's to the last's: its gas used, the batches mined in it
 * (signer index:nonce, and how long after signing each was first broadcast and then mined), and the
 * gas of batches already broadcast and not yet mined at the block's time (what the pool offered).
 * A batch broadcast more than a block before the block that mined it, while blocks went out with
 * room, was dropped by the node and sent again.
 */
async function printBlockStructure(stack: Stack, db: Client, sinceMs: number): Promise<void> {
  const { rows } = await db.query<{
    signer: string;
    nonce: string;
    gas_limit: string;
    block_number: string;
    signed: string;
    sent: string | null;
    attempts: number;
  }>(
    `SELECT t.signer, t.nonce::text, t.gas_limit::text, t.block_number::text,
            (extract(epoch FROM t.created_at) * 1000)::text AS signed, (extract(epoch FROM t.broadcast_at) * 1000)::text AS sent,
            (SELECT count(*)::int FROM chain_transactions a WHERE a.signer = t.signer AND a.nonce = t.nonce) AS attempts
       FROM chain_transactions t WHERE t.status = 'confirmed' AND t.item_count > 1 AND t.created_at >= $1 ORDER BY t.block_number, t.signer, t.nonce`,
    [new Date(sinceMs)],
  );
  const signers = [...new Set(rows.map((row) => row.signer))].sort();
  const first = Number(rows[0].block_number);
  const last = Number(rows.at(-1)!.block_number);
  console.log(`Blocks ${first}–${last}: time, gas used, batches (signer:nonce +signed→broadcast s, →mined s), gas broadcast and unmined at the block's time`);
  for (let number = first; number <= last; number++) {
    const block = await stack.chain.provider.getBlock(number);
    if (!block) throw new Error(`block ${number} not found`);
    const atMs = block.timestamp * 1000;
    const mined = rows.filter((row) => Number(row.block_number) === number);
    const waiting = rows.filter((row) => row.sent !== null && Number(row.sent) <= atMs && Number(row.block_number) >= number);
    const waitingGas = waiting.reduce((sum, row) => sum + Number(row.gas_limit), 0);
    const batches = mined.map((row) => {
      const sent = row.sent === null ? "?" : ((Number(row.sent) - Number(row.signed)) / 1000).toFixed(1);
      const inPool = row.sent === null ? "?" : ((atMs - Number(row.sent)) / 1000).toFixed(1);
      return `${signers.indexOf(row.signer)}:${row.nonce} +${sent}→${inPool}${row.attempts > 1 ? ` (${row.attempts} attempts)` : ""}`;
    });
    console.log(
      `  ${number} ${new Date(atMs).toISOString().slice(11, 19)} ${Math.round((Number(block.gasUsed) / Number(block.gasLimit)) * 100)}% ` +
        `[${batches.join(", ")}] pool ${(waitingGas / 1e6).toFixed(1)}M`,
    );
  }
}

async function runApi(apis: number, seconds: number, events: number): Promise<ApiResult> {
  return withStack(`api-${apis}a`, { signers: 1, workers: 1, apis }, async (stack, db) => {
    const eventIds = await registerEvents(stack, events);
    const servers = stack.baseUrls.map((baseUrl) => ({ baseUrl, apiKey: stack.apiKey }));
    const byApi = servers.map(() => 0);
    const sell = seller(servers, eventIds, randomBytes(3).toString("hex"));
    const counted = async (client: number) => {
      const accepted = await sell(client);
      byApi[client % servers.length] += accepted;
      return accepted;
    };
    await load(counted, WARMUP_SECONDS * 1000);
    byApi.fill(0);
    const before = await acceptedTickets(db);
    const cpu = sampler(stack);
    cpu.start();
    const measured = await load(counted, seconds * 1000);
    const usage = cpu.stop();
    const after = await acceptedTickets(db);
    if (after - before !== measured.tickets)
      throw new Error(`the ledger gained ${after - before} tickets during the run, the answers accepted ${measured.tickets}`);
    await checkLedger(db, events);
    printCpu(usage);
    return {
      apis,
      requests: measured.latencies.length,
      tickets: measured.tickets,
      ticketsPerSecond: measured.tickets / measured.seconds,
      p50Ms: median(measured.latencies),
      p99Ms: quantile(measured.latencies, 0.99),
      byApi: byApi.map((count, index) => `${stack.services.apiNames[index]} ${count}`).join(", "),
      cpu: usage,
    };
  });
}

const USAGE =
  "options: --part chain|api (default both), --signers N and --workers N (chain part; repeat for several; default 1, 2, 4 signers × 1, 2 workers), " +
  "--tickets N (chain part, default 40000), --apis N (api part; repeat; default 1, 2), --seconds S (api part, default 20), --events N (api part, default 1), --blocks (chain part: print each block's batches)";

export function parseScaleOptions(argv: string[]): ScaleOptions {
  let values: {
    part?: string;
    signers?: string[];
    workers?: string[];
    apis?: string[];
    tickets?: string;
    seconds?: string;
    events?: string;
    blocks?: boolean;
  };
  try {
    values = parseArgs({
      args: argv,
      options: {
        part: { type: "string" },
        signers: { type: "string", multiple: true },
        workers: { type: "string", multiple: true },
        apis: { type: "string", multiple: true },
        tickets: { type: "string" },
        seconds: { type: "string" },
        events: { type: "string" },
        blocks: { type: "boolean" },
      },
      strict: true,
    }).values;
  } catch (error) {
    throw new Error(`${error instanceof Error ? error.message : String(error)}\n${USAGE}`, { cause: error });
  }
  const counts = (given: string[] | undefined, fallback: number[]) => given?.map(Number) ?? fallback;
  const options: ScaleOptions = {
    parts: values.part === undefined ? ["chain", "api"] : [values.part as "chain" | "api"],
    signers: counts(values.signers, [1, 2, 4]),
    workers: counts(values.workers, [1, 2]),
    apis: counts(values.apis, [1, 2]),
    tickets: Number(values.tickets ?? 40_000),
    seconds: Number(values.seconds ?? 20),
    events: Number(values.events ?? 1),
    blocks: values.blocks ?? false,
  };
  const positive = (n: number) => Number.isInteger(n) && n >= 1;
  if (
    !options.parts.every((part) => part === "chain" || part === "api") ||
    ![...options.signers, ...options.workers, ...options.apis, options.tickets, options.events].every(positive) ||
    options.signers.some((n) => n > EVENTS) ||
    !(options.seconds > 0)
  )
    throw new Error(`${USAGE}\n(at most ${EVENTS} signers: the sales are of ${EVENTS} events)`);
  return options;
}

if (require.main === module) {
  Promise.resolve()
    .then(() => main(parseScaleOptions(process.argv.slice(2))))
    .catch((error: unknown) => {
      console.error(error);
      process.exitCode = 1;
    });
}
