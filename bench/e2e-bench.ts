import { randomBytes } from "node:crypto";
import { parseArgs } from "node:util";

import type { JsonRpcProvider } from "ethers";
import { Client } from "pg";

import { CHAIN_NODE_KINDS, type ChainNodeKind } from "../scripts/stack/chain-node";
import { loadConfig } from "../src/config/app-config";
import { generateTestTls, writeTestTls } from "../scripts/stack/local-tls";
import { startBenchServer } from "./bench-server";
import { startCallbackSink } from "./callback-sink";
import { measureChainCapacity, serviceSaleBatches } from "./chain-capacity";
import { describeLimit, type Figure, meetsRatioGoal, meetsTarget, ratioOf, writeFigures } from "./figures";
import { poster } from "./poster";
import { CHAIN_NODE_LABELS, startBenchChain } from "./stack/bench-chain";
import { CpuSampler } from "./stack/cpu-usage";
import { tableWrites, writesPerTicket } from "./stack/table-writes";
import { SERVICE_GROUP, writerCpuFigures } from "./writer-cpu";
import { runDirectory } from "./stack/run-directory";
import { Teardown } from "./stack/teardown";

/**
 * End to end: 20,000 soldTicket actions through /stream (four requests of 5000), timed from the
 * first request until every action is confirmed on a local chain and its callback delivered to a
 * local HTTPS receiver, on each node in turn: Hardhat's automining node (a block per transaction,
 * at once) and Anvil as a production-like chain (chain id 80002, a block every 2 s, 45M gas limit,
 * 30 gwei base fee). Prints tickets per second beside the target, and the batches the writer
 * actually sent with their gas per ticket, and the CPU the service and PostgreSQL used per confirmed
 * ticket beside encoding and signing the same batches alone. `npm run bench:e2e -- --node hardhat|anvil`
 * runs one node only.
 */
const TICKETS = 20_000;
const PER_REQUEST = 5_000;
const TARGET_TICKETS_PER_SECOND = 1_000;
/** The goal on Anvil's 2-second blocks: end to end at least 0.9 of the node's own capacity for the same batches. */
const CAPACITY_RATIO_GOAL = 0.9;
/**
 * The goal on Hardhat's automining node: end to end at least half the api's own acceptance rate in
 * the same run. Its instant mining makes the node alone far faster than any service's acceptance.
 */
const ACCEPTANCE_RATIO_GOAL = 0.5;
/** The goal of the writer's share of each block's gas while a backlog waits (Anvil): this much of the configured block share. */
const BLOCK_FILL_GOAL = 0.9;
/** Far beyond any healthy run: a stalled pipeline fails the benchmark instead of hanging it. */
const DEADLINE_MS = 600_000;

/** The figure's name on `node`: bench/results.json keeps one per node. */
export function e2eFigureName(node: ChainNodeKind): string {
  return `End to end: sales confirmed on chain (${CHAIN_NODE_LABELS[node]})`;
}

/**
 * Runs the benchmark on each of `nodes` in turn, prints its tables and returns a figure per node (and,
 * on Anvil, the writer's share of the blocks' gas); everything it started is stopped.
 */
export async function runE2eBench(nodes: readonly ChainNodeKind[] = CHAIN_NODE_KINDS): Promise<Figure[]> {
  const figures: Figure[] = [];
  const others: Figure[] = [];
  for (const node of nodes) {
    console.log(`\n-- on ${CHAIN_NODE_LABELS[node]}`);
    const { endToEnd, blockFill, cpu } = await runOnNode(node);
    figures.push(endToEnd);
    others.push(...(blockFill ? [blockFill] : []), ...cpu);
  }
  if (figures.length > 1) {
    console.log("\nEnd to end, by node:");
    console.table(
      figures.map((figure) => ({
        figure: figure.name,
        "tickets/s": figure.value,
        target: `≥ ${figure.target}`,
        met: meetsTarget(figure) ? "yes" : "NO",
        limit: describeLimit(figure),
      })),
    );
  }
  return [...figures, ...others];
}

async function runOnNode(node: ChainNodeKind): Promise<{ endToEnd: Figure; blockFill?: Figure; cpu: Figure[] }> {
  const teardown = new Teardown();
  const logs = runDirectory(`bench-e2e-${node}`);
  let passed = false;
  teardown.add("process logs", async () => logs.finish(passed));
  try {
    const chain = await startBenchChain(logs.path, { kind: node });
    teardown.add("chain node", chain.stop);
    const tls = writeTestTls(await generateTestTls());
    teardown.add("test TLS files", async () => tls.remove());
    const receiver = await startCallbackSink(tls.certFile, tls.keyFile);
    teardown.add("callback receiver", receiver.close);
    const server = await startBenchServer(
      {
        ...chain.env,
        APP_ROLE: "all",
        BATCH_MAX_WAIT_MS: "300",
        RECEIPT_POLL_MS: "200",
        CALLBACK_ALLOW_HOSTS: "localhost",
        NODE_EXTRA_CA_CERTS: tls.caFile,
      },
      logs.path,
    );
    teardown.add("service", server.stop);
    const db = new Client({ connectionString: server.databaseUrl });
    await db.connect();
    teardown.add("database client", () => db.end());

    const post = poster(server.baseUrl, server.apiKey);
    const eventId = `bench-${randomBytes(4).toString("hex")}`;
    await post("/api/v1/events", { eventId, ticketeerId: server.ticketeerId, currency: "EUR", callbackUrl: `https://localhost:${receiver.port}/callbacks` });
    await waitForConfirmed(db, 1);

    const writesAtStart = await tableWrites(db);
    const started = performance.now();
    for (let offset = 0; offset < TICKETS; offset += PER_REQUEST) await post("/stream", soldActions(eventId, offset, PER_REQUEST));
    const accepted = performance.now();
    const cpu = new CpuSampler(() => [{ name: SERVICE_GROUP, pid: server.pid }]);
    cpu.start();
    const confirmedAtAccepted = await confirmedCount(db);
    const blockAtAccepted = await chain.provider.getBlockNumber();
    await waitForConfirmed(db, TICKETS + 1);
    const confirmed = performance.now();
    const cpuWhileConfirming = cpu.stop();
    // Backends report their statistics at most once a second: wait for the last second's.
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    const writesAtConfirmed = await tableWrites(db);
    await waitForDelivered(db, TICKETS + 1);
    const delivered = performance.now();

    const seconds = (confirmed - started) / 1000;
    const ticketsPerSecond = TICKETS / seconds;
    console.table([
      {
        tickets: TICKETS,
        "accepted in s": ((accepted - started) / 1000).toFixed(2),
        "all confirmed in s": seconds.toFixed(2),
        "tickets/s end to end": Math.round(ticketsPerSecond),
        target: `≥ ${TARGET_TICKETS_PER_SECOND}`,
        "last callback delivered at s": ((delivered - started) / 1000).toFixed(2),
        met: ticketsPerSecond >= TARGET_TICKETS_PER_SECOND ? "yes" : "NO",
      },
    ]);
    console.log("Batches the writer sent (sales only):");
    console.table(await batches(db, Date.now() - (performance.now() - started)));
    const blockFill = node === "anvil" ? await printBlockFill(db, chain.provider, blockAtAccepted) : undefined;
    const onChain = await chain.registry.eventRecord(1n);
    console.log(`On chain: ${onChain.ticketsSold} tickets sold in event 1 (expected ${TICKETS})`);
    if (onChain.ticketsSold !== BigInt(TICKETS)) throw new Error(`the registry counts ${onChain.ticketsSold} tickets sold, not ${TICKETS}`);

    // The limit: the same node's own capacity for the same batches, without the service.
    const capacity = await measureChainCapacity(chain, await serviceSaleBatches(db));
    const acceptedPerSecond = TICKETS / ((accepted - started) / 1000);
    const limit = node === "anvil" ? capacity.ticketsPerSecond : acceptedPerSecond;
    const figure: Figure = {
      name: e2eFigureName(node),
      value: Math.round(ticketsPerSecond),
      unit: "tickets/s",
      target: TARGET_TICKETS_PER_SECOND,
      better: "higher",
      limit: Math.round(limit),
      limitName:
        node === "anvil"
          ? "the node alone: the same batches pre-signed and sent straight to it"
          : "the api's own acceptance of the same sales (/stream), in the same run",
      ratio: ratioOf(ticketsPerSecond, limit),
      ratioGoal: node === "anvil" ? CAPACITY_RATIO_GOAL : ACCEPTANCE_RATIO_GOAL,
    };
    console.log("The node's own capacity for the same batches (pre-signed, sent straight to it, no service):");
    console.table([
      {
        tickets: capacity.tickets,
        batches: capacity.batches,
        "sent again": capacity.resent,
        "all mined in s": capacity.seconds.toFixed(2),
        "tickets/s, node alone": Math.round(capacity.ticketsPerSecond),
        "the api's acceptance, tickets/s": Math.round(acceptedPerSecond),
        "end to end / limit": figure.ratio,
        limit: node === "anvil" ? "the node alone" : "the api's acceptance",
        goal: `≥ ${figure.ratioGoal}`,
        met: meetsRatioGoal(figure) ? "yes" : "NO",
      },
    ]);
    const confirmedMeanwhile = TICKETS + 1 - confirmedAtAccepted;
    const cpuFigures = writerCpuFigures(node, cpuWhileConfirming, confirmedMeanwhile, capacity.encodeAndSignMicrosPerTicket);
    console.log("Rows PostgreSQL wrote per ticket, from the first request until every sale was confirmed (and a second after), by table:");
    console.table(writesPerTicket(writesAtStart, writesAtConfirmed, TICKETS));
    passed = true;
    return { endToEnd: figure, blockFill, cpu: cpuFigures };
  } finally {
    await teardown.run();
  }
}

/** `count` soldTicket actions of `eventId`, ticket ids from `ticket-<offset>` on. */
export function soldActions(eventId: string, offset: number, count: number) {
  return Array.from({ length: count }, (_, i) => ({
    action: "soldTicket",
    data: { eventId, ticketId: `ticket-${offset + i}`, price: "49.95", orderTime: 1_750_000_000 },
  }));
}

async function confirmedCount(db: Client): Promise<number> {
  const { rows } = await db.query<{ confirmed: number }>(`SELECT count(*)::int AS confirmed FROM chain_actions WHERE status = 'confirmed'`);
  return rows[0].confirmed;
}

/** Until `count` chain actions are confirmed (throws once one failed, or after DEADLINE_MS). */
export async function waitForConfirmed(db: Client, count: number): Promise<void> {
  const deadline = Date.now() + DEADLINE_MS;
  for (;;) {
    const { rows } = await db.query<{ confirmed: number; failed: number }>(
      `SELECT count(*) FILTER (WHERE status = 'confirmed')::int AS confirmed, count(*) FILTER (WHERE status = 'error')::int AS failed FROM chain_actions`,
    );
    if (rows[0].failed > 0) throw new Error(`${rows[0].failed} actions failed`);
    if (rows[0].confirmed >= count) return;
    if (Date.now() > deadline) throw new Error(`only ${rows[0].confirmed} of ${count} actions confirmed within ${DEADLINE_MS / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Until `count` callbacks are delivered (throws after DEADLINE_MS). */
export async function waitForDelivered(db: Client, count: number): Promise<void> {
  const deadline = Date.now() + DEADLINE_MS;
  for (;;) {
    const { rows } = await db.query<{ delivered: number }>(`SELECT count(*) FILTER (WHERE status = 'delivered')::int AS delivered FROM callbacks`);
    if (rows[0].delivered >= count) return;
    if (Date.now() > deadline) throw new Error(`only ${rows[0].delivered} of ${count} callbacks delivered within ${DEADLINE_MS / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function batches(db: Client, startedAtMs: number) {
  const { rows } = await db.query<{
    nonce: string;
    item_count: number;
    gas_used: string;
    block_number: string;
    created_at: Date;
    broadcast_at: Date | null;
    updated_at: Date;
  }>(
    `SELECT nonce, item_count, gas_used, block_number, created_at, broadcast_at, updated_at FROM chain_transactions
      WHERE status = 'confirmed' AND item_count > 1 ORDER BY nonce`,
  );
  const at = (date: Date) => ((date.getTime() - startedAtMs) / 1000).toFixed(2);
  return rows.map((row) => ({
    nonce: Number(row.nonce),
    tickets: row.item_count,
    "gas used": Number(row.gas_used),
    "gas per ticket": Math.round(Number(row.gas_used) / row.item_count),
    block: Number(row.block_number),
    "signed at s": at(row.created_at),
    "sent at s": row.broadcast_at ? at(row.broadcast_at) : "",
    "confirmed at s": at(row.updated_at),
  }));
}

/**
 * The writer's share of each block's gas while a backlog waited: the blocks mined after every sale
 * was accepted, up to the one before the last block that carried sales (sales were still waiting
 * for each of them), a block that carried none counting as 0. Its goal is BLOCK_FILL_GOAL of the
 * share the configuration allows a batch (BLOCK_GAS_SHARE_PERCENT), the same for the mean.
 */
async function printBlockFill(db: Client, provider: JsonRpcProvider, blockAtAccepted: number): Promise<Figure | undefined> {
  const { rows } = await db.query<{ block_number: string; gas: string; batches: number }>(
    `SELECT block_number, sum(gas_used)::text AS gas, count(*)::int AS batches FROM chain_transactions
      WHERE status = 'confirmed' AND item_count > 1 GROUP BY block_number ORDER BY block_number`,
  );
  const byBlock = new Map(rows.map((row) => [Number(row.block_number), { gas: BigInt(row.gas), batches: row.batches }]));
  const last = Math.max(...byBlock.keys());
  const share = loadConfig({ BLOCK_GAS_SHARE_PERCENT: process.env.BLOCK_GAS_SHARE_PERCENT }).chain.writer.blockGasShare;
  const goal = BLOCK_FILL_GOAL * share;
  const blocks = [];
  for (let number = blockAtAccepted + 1; number < last; number++) {
    const block = await provider.getBlock(number);
    if (!block) continue;
    const writer = byBlock.get(number) ?? { gas: 0n, batches: 0 };
    blocks.push({
      block: number,
      batches: writer.batches,
      "writer's gas": Number(writer.gas),
      "block gas limit": Number(block.gasLimit),
      fill: Number(writer.gas) / Number(block.gasLimit),
    });
  }
  console.log(`The writer's share of each block's gas while sales waited (blocks after the last acceptance, before the last block with sales):`);
  if (blocks.length === 0) {
    console.log("  none: every sale was mined within a block of its acceptance");
    return undefined;
  }
  console.table(
    blocks.map((row) => ({ ...row, fill: `${(row.fill * 100).toFixed(1)}%`, goal: `≥ ${(goal * 100).toFixed(0)}%`, met: row.fill >= goal ? "yes" : "NO" })),
  );
  const mean = blocks.reduce((sum, row) => sum + row.fill, 0) / blocks.length;
  console.log(
    `  mean ${(mean * 100).toFixed(1)}% of the block's gas (goal ≥ ${BLOCK_FILL_GOAL} of the configured block share of ${share * 100}%: ≥ ${(goal * 100).toFixed(0)}%): ${mean >= goal ? "met" : "NOT met"}`,
  );
  return {
    name: "End to end on Anvil: the writer's share of each block's gas while sales waited, mean",
    value: Math.round(mean * 1000) / 10,
    unit: "% of block gas",
    target: Math.round(goal * 1000) / 10,
    better: "higher",
    limit: Math.round(share * 1000) / 10,
    limitName: "the share of a block the configuration gives one batch (BLOCK_GAS_SHARE_PERCENT)",
    ratio: ratioOf(mean, share),
    ratioGoal: BLOCK_FILL_GOAL,
  };
}

const USAGE = "options: --node hardhat|anvil (default: both, one after the other)";

/** `npm run bench:e2e [-- --node hardhat|anvil]`: the nodes to run on. */
export function parseE2eOptions(argv: string[]): ChainNodeKind[] {
  let node: string | undefined;
  try {
    node = parseArgs({ args: argv, options: { node: { type: "string" } }, strict: true }).values.node;
  } catch (error) {
    throw new Error(`${error instanceof Error ? error.message : String(error)}\n${USAGE}`, { cause: error });
  }
  if (node === undefined) return [...CHAIN_NODE_KINDS];
  if (!CHAIN_NODE_KINDS.includes(node as ChainNodeKind)) throw new Error(`--node must be hardhat or anvil, got "${node}"\n${USAGE}`);
  return [node as ChainNodeKind];
}

if (require.main === module) {
  const nodes = parseE2eOptions(process.argv.slice(2));
  Promise.resolve()
    .then(() => runE2eBench(nodes))
    // Only a run on both nodes writes bench/results.json: a figure beside its limit from one run.
    .then((figures) => (nodes.length === CHAIN_NODE_KINDS.length ? writeFigures(figures) : undefined))
    .catch((error: unknown) => {
      console.error(error);
      process.exitCode = 1;
    });
}
