import { ConsoleLogger, Logger } from "@nestjs/common";
import fc from "fast-check";
import { getAddress, Wallet } from "ethers";
import { Counter, Gauge, Histogram } from "prom-client";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";

import type { ChainClient } from "../../src/chain/chain-client";
import type { ChainWriterQueue } from "../../src/chain/queue/chain-writer.queue";
import { LedgerBinding } from "../../src/chain/writer/binding/ledger-binding";
import { LedgerBindingStore } from "../../src/chain/writer/binding/ledger-binding.store";
import { BroadcastOrder } from "../../src/chain/writer/broadcast/broadcast-order";
import { BroadcastStore } from "../../src/chain/writer/broadcast/broadcast.store";
import { RetryBackOff } from "../../src/chain/writer/broadcast/retry-back-off";
import { TransactionSender } from "../../src/chain/writer/broadcast/transaction-sender";
import { UnsentNonces } from "../../src/chain/writer/broadcast/unsent-nonces";
import { FeeBumper } from "../../src/chain/writer/fee-bump/fee-bumper";
import { FeeCapGuard } from "../../src/chain/writer/fee-cap/fee-cap.guard";
import { SignerProgress } from "../../src/chain/writer/progress/signer-progress";
import { Confirmations } from "../../src/chain/writer/receipts/confirmations";
import { RegistrySubjectFacts } from "../../src/chain/writer/restore/registry-subject-facts";
import { FinalizationStore } from "../../src/chain/writer/receipts/finalization.store";
import { LostTransactions } from "../../src/chain/writer/receipts/lost-transactions";
import { ReceiptWatcher } from "../../src/chain/writer/receipts/receipt-watcher";
import { ReceiptsStore } from "../../src/chain/writer/receipts/receipts.store";
import { Resender } from "../../src/chain/writer/receipts/resender";
import { SignerWatch } from "../../src/chain/writer/receipts/signer-watch";
import { TransactionFinalizer } from "../../src/chain/writer/receipts/transaction-finalizer";
import { UnminedNonces } from "../../src/chain/writer/receipts/unmined-nonces";
import { ReconcileStore } from "../../src/chain/writer/reconcile/reconcile.store";
import { SignerNonceGuard } from "../../src/chain/writer/reconcile/signer-nonce-guard";
import { ForeignPendingError, SignerReconciler } from "../../src/chain/writer/reconcile/signer-reconciler";
import { SignerStopsStore } from "../../src/chain/writer/reconcile/signer-stops.store";
import { LearnedLimits } from "../../src/chain/writer/refusals/learned-limits";
import { NonceTakeBack } from "../../src/chain/writer/refusals/nonce-take-back";
import { RefusalResponder } from "../../src/chain/writer/refusals/refusal-responder";
import { RefusalsStore } from "../../src/chain/writer/refusals/refusals.store";
import { TakenNonces } from "../../src/chain/writer/refusals/taken-nonces";
import { BatchReader } from "../../src/chain/writer/sending/batch-reader";
import { BatchSender } from "../../src/chain/writer/sending/batch-sender";
import { ChainWriter } from "../../src/chain/writer/sending/chain-writer";
import { CrashPoints } from "../../src/chain/writer/sending/crash-points";
import { FlushGates } from "../../src/chain/writer/sending/flush-gates";
import { SendingStore } from "../../src/chain/writer/sending/sending.store";
import { UnsendableActions } from "../../src/chain/writer/sending/unsendable-actions";
import { FundsGate } from "../../src/chain/writer/signer-funds/funds-gate";
import { SignerLocks } from "../../src/chain/writer/signer-locks";
import { WriterMetrics } from "../../src/chain/writer/writer-metrics";
import { type AppConfig, loadConfig } from "../../src/config/app-config";
import { TicketRegistry__factory } from "../../typechain-types";
import { CHAIN_ID, REGISTRY_ADDRESS, ScriptedNode } from "../support/scripted-node";
import { checkIn, registration, sale, type SeededEvent, WriterLedger } from "../support/writer-ledger";

/**
 * Order holds whatever happens to nonces: the chain writer (its flushes, the receipt watcher's passes,
 * the responses to refusals, signer reconcile) over the real ledger in PostgreSQL is driven through
 * random sequences of acceptances, refusals, pools dropped, nonces taken by a transaction sent with
 * the signer's key elsewhere, slow broadcasts, blocks and passing time. No action may be mined before what
 * it depends on (its event's registration, its ticket's sale), and once the faults stop every action
 * is confirmed, none fails.
 *
 * The chain is a scripted node (test/support/scripted-node.ts), not Hardhat or Anvil: a property needs
 * hundreds of runs of dozens of steps with faults at chosen moments (a refusal of the next broadcast,
 * another sender's transaction between two of the writer's, blocks on request), which a real node
 * gives neither at will nor in CI's time; the chain end-to-end tests hold the writer to real nodes.
 */

const EVENTS = 2;
const TICKETS_PER_EVENT = 40;
/** Time the steps move the writer's clock: its back-offs, re-sends of unknown bytes and stuck clocks read Date.now(). */
const TICK_MS = 4_000;

type Step =
  | { kind: "accept"; event: number; sales: number; checkIns: number }
  | { kind: "flush" }
  | { kind: "watch" }
  | { kind: "mine" }
  | { kind: "refuse"; message: string }
  | { kind: "take" }
  | { kind: "drop" }
  | { kind: "hold" }
  | { kind: "deliver" }
  | { kind: "pause"; ms: number }
  | { kind: "tick" }
  | { kind: "reconcile" };

const fault: fc.Arbitrary<Step[]> = fc.oneof(
  fc.constant<Step[]>([]),
  fc.constant<Step[]>([{ kind: "take" }]),
  fc
    .constantFrom("txpool is full", "transaction underpriced", "replacement transaction underpriced", "max fee per gas less than block base fee")
    .map((message): Step[] => [{ kind: "refuse", message }]),
  fc.constant<Step[]>([{ kind: "drop" }]),
);

/**
 * One round of the writer's life, its parts in a plausible order and each left out at random: actions
 * accepted, broadcasts held on their way, a flush running while time passes, a fault, the held
 * broadcasts delivered, watcher passes with time between them, a block, the operator's reconcile.
 * Rounds (rather than steps drawn one by one) reach the interleavings that matter in a few runs: a
 * nonce taken while the batches after it are signed and on their way, answered over several passes.
 */
const round: fc.Arbitrary<Step[]> = fc
  .record({
    accept: fc.option(
      fc.record({ kind: fc.constant("accept" as const), event: fc.nat(EVENTS - 1), sales: fc.integer({ min: 1, max: 12 }), checkIns: fc.nat(4) }),
      {
        nil: null,
      },
    ),
    hold: fc.boolean(),
    pause: fc.integer({ min: 0, max: 40 }),
    fault,
    deliver: fc.boolean(),
    passes: fc.array(fc.boolean(), { maxLength: 3 }),
    mine: fc.boolean(),
    reconcile: fc.boolean(),
  })
  .map((r) => [
    ...(r.accept ? [r.accept] : []),
    ...(r.hold ? [{ kind: "hold" as const }] : []),
    { kind: "flush" as const },
    { kind: "pause" as const, ms: r.pause },
    ...r.fault,
    ...(r.deliver ? [{ kind: "deliver" as const }] : []),
    ...r.passes.flatMap((tick): Step[] => [{ kind: "watch" }, { kind: "pause", ms: 5 }, ...(tick ? [{ kind: "tick" as const }] : [])]),
    ...(r.mine ? [{ kind: "mine" as const }] : []),
    ...(r.reconcile ? [{ kind: "reconcile" as const }] : []),
  ]);

let ledger: WriterLedger;
let config: AppConfig;
let metricCount = 0;

beforeAll(async () => {
  Logger.overrideLogger(process.env.PROPERTY_LOGS ? ["log", "warn", "error"] : false);
  ledger = await WriterLedger.open();
  config = loadConfig({
    // Small batches: an event's actions span several nonces.
    TX_GAS_CAP: "300000",
    MAX_IN_FLIGHT_PER_SIGNER: "4",
    BATCH_MAX_WAIT_MS: "0",
    CONFIRMATIONS: "1",
    STUCK_TX_AFTER_MS: "3600000",
    FEE_BUMP_PERCENT: "15",
  });
  // Bound up front: the scripted node answers no eth_call, which a fresh ledger's binding would make.
  await new LedgerBindingStore(ledger.dataSource).bind({
    chainId: CHAIN_ID,
    registryAddress: getAddress(REGISTRY_ADDRESS),
    fromBlock: BigInt(config.chain.fromBlock),
  });
  vi.useFakeTimers({ toFake: ["Date"] });
});

afterEach(() => {
  vi.setSystemTime(new Date());
});

afterAll(async () => {
  vi.useRealTimers();
  // Nest's logger is the process's: the next file of this worker logs as a fresh process would.
  Logger.overrideLogger(new ConsoleLogger());
  await ledger?.close();
});

const gauge = () => new Gauge({ name: `property_gauge_${metricCount++}`, help: "-", labelNames: ["signer"], registers: [] });
const counter = (labelNames: string[] = ["signer", "reason"]) =>
  new Counter({ name: `property_counter_${metricCount++}`, help: "-", labelNames, registers: [] });
const histogram = () => new Histogram({ name: `property_histogram_${metricCount++}`, help: "-", labelNames: ["status"], registers: [] });

/** The writer's parts composed as ChainWriterModule composes them, for one signer on the scripted node. */
function writerOn(node: ScriptedNode, key: string) {
  const dataSource = ledger.dataSource;
  const wallet = new Wallet(key);
  const chain = {
    configured: true,
    registry: TicketRegistry__factory.createInterface(),
    registryAddress: REGISTRY_ADDRESS,
    signers: () => [wallet],
    connect: () => Promise.resolve(node.provider),
    chainId: () => Promise.resolve(CHAIN_ID),
  } as unknown as ChainClient;
  // Flushes run when the test says: a flush asked for is the next `flush` step's.
  const queue = {
    requestFlush: () => Promise.resolve(),
    actionsAccepted: () => Promise.resolve(),
    flushWaiting: () => Promise.resolve(false),
  } as unknown as ChainWriterQueue;
  const sending = new SendingStore(dataSource);
  const receipts = new ReceiptsStore(dataSource);
  const open = new BroadcastStore(dataSource);
  const refusalsStore = new RefusalsStore(dataSource);
  const locks = new SignerLocks(dataSource);
  const progress = new SignerProgress(config, counter(), gauge());
  const feeCap = new FeeCapGuard(queue, config, gauge(), gauge());
  const funds = new FundsGate(refusalsStore, queue, progress, feeCap, gauge());
  const learned = new LearnedLimits();
  const backOff = new RetryBackOff(config);
  const transactions = new TransactionSender(open, new BroadcastOrder(open), progress);
  const metrics = new WriterMetrics(histogram(), histogram(), histogram(), histogram(), counter(), counter(["organization"]));
  const bumper = new FeeBumper(sending, metrics, transactions, config);
  const stops = new SignerStopsStore(dataSource);
  const guard = new SignerNonceGuard(stops, gauge());
  const subjectFacts = new RegistrySubjectFacts(chain);
  const unsendable = new UnsendableActions(sending, chain, subjectFacts);
  const takeBack = new NonceTakeBack(refusalsStore, open, locks, queue, unsendable, backOff);
  const refusals = new RefusalResponder(backOff, learned, funds, bumper, takeBack);
  const binding = new LedgerBinding(chain, new LedgerBindingStore(dataSource), config, gauge());
  const gates = new FlushGates(chain, binding, sending, guard, funds, new UnsentNonces(open, transactions, backOff));
  const batches = new BatchReader(sending, unsendable, learned, config);
  const sender = new BatchSender(sending, chain, transactions, backOff, new CrashPoints(config), config);
  const writer = new ChainWriter(chain, locks, queue, gates, batches, sender);
  const confirmations = new Confirmations(chain, receipts, new TransactionFinalizer(new FinalizationStore(dataSource), subjectFacts, config), metrics, config);
  const resender = new Resender(transactions, refusals, backOff, bumper, locks, open);
  const unmined = new UnminedNonces(new TakenNonces(refusalsStore, open, locks, guard), receipts, backOff, refusals, resender, config);
  const signerWatch = new SignerWatch(open, new LostTransactions(receipts, transactions), confirmations, unmined, progress, queue);
  const watcher = new ReceiptWatcher(chain, binding, locks, signerWatch, config);
  const reconciler = new SignerReconciler(chain, open, new ReconcileStore(dataSource), stops, locks, queue);
  return { wallet, writer, watcher, reconciler, stops };
}

/** The run's events and what of them was accepted so far. */
class Sales {
  readonly ids: string[] = [];
  private readonly sold = new Map<number, number>();
  private readonly checkedIn = new Map<number, number>();

  constructor(private readonly events: SeededEvent[]) {}

  /** The event's registration with its first acceptance, then `sales` new sales and check-ins of tickets sold before. */
  async accept(index: number, sales: number, checkIns: number): Promise<void> {
    const event = this.events[index];
    const sold = this.sold.get(index) ?? 0;
    const checked = this.checkedIn.get(index) ?? 0;
    const selling = event.tickets.slice(sold, Math.min(sold + sales, event.tickets.length));
    const checking = event.tickets.slice(checked, Math.min(checked + checkIns, sold + selling.length));
    const items = [
      ...(sold === 0 ? [{ ticket: null, item: registration(event) }] : []),
      ...selling.map((ticket) => ({ ticket, item: sale(ticket) })),
      ...checking.map((ticket) => ({ ticket, item: checkIn(ticket) })),
    ];
    if (items.length === 0) return;
    this.ids.push(...(await ledger.accept(event, items)));
    this.sold.set(index, sold + selling.length);
    this.checkedIn.set(index, checked + checking.length);
  }
}

function expectForeignPending(error: unknown): void {
  if (!(error instanceof ForeignPendingError)) throw error;
}

async function statuses(ids: readonly string[]): Promise<Record<string, number>> {
  const rows = await ledger.sql<{ status: string; count: number }>(
    `SELECT coalesce(error_code, status) AS status, count(*)::int AS count FROM chain_actions WHERE id = ANY($1::uuid[]) GROUP BY 1`,
    [ids],
  );
  return Object.fromEntries(rows.map((row) => [row.status, row.count]));
}

async function run(steps: Step[]): Promise<void> {
  // Each run writes as a signer of its own; what an earlier failed run left waiting is not this run's to send.
  await ledger.sql(`UPDATE chain_actions SET status = 'error' WHERE status IN ('waiting_broadcast', 'waiting_funds')`);
  const key = Wallet.createRandom().privateKey;
  const node = new ScriptedNode(ledger.dataSource);
  const { wallet, writer, watcher, reconciler, stops } = writerOn(node, key);
  const events: SeededEvent[] = [];
  for (let index = 0; index < EVENTS; index++) events.push(await ledger.ownShardEvent(TICKETS_PER_EVENT));
  const sales = new Sales(events);
  // Flushes and watcher passes run on while the next steps happen (a held broadcast keeps them waiting).
  const running: Promise<void>[] = [];
  // A flush's failure is its job's: retried by the queue, and here by the next flush.
  const flush = () => running.push(writer.flush(0).catch(() => undefined));
  const reconcileIfStopped = async () => {
    // Refused while another sender's transactions wait unmined in the node: the operator tries again later.
    if ((await stops.stateOf(wallet.address))?.stop) await reconciler.reconcile(wallet.address).catch((error: unknown) => expectForeignPending(error));
  };
  const tick = () => vi.setSystemTime(Date.now() + TICK_MS);

  for (const next of steps) {
    if (next.kind === "accept") await sales.accept(next.event, next.sales, next.checkIns);
    else if (next.kind === "flush") flush();
    else if (next.kind === "watch") running.push(watcher.poll());
    else if (next.kind === "mine") node.mine();
    else if (next.kind === "refuse") node.refuseNext(next.message);
    else if (next.kind === "take") await node.sendFromElsewhere(key);
    else if (next.kind === "drop") {
      // A restart: what was on its way is lost, and the pool is emptied once the writer has had its answers
      // (a broadcast checked against a pool that vanishes before it arrives is a race no writer can win).
      node.loseHeld();
      await Promise.all(running.splice(0));
      node.dropPool();
    } else if (next.kind === "hold") node.hold();
    else if (next.kind === "deliver") node.deliver();
    else if (next.kind === "pause") await new Promise((resolve) => setTimeout(resolve, next.ms));
    else if (next.kind === "tick") tick();
    else await reconcileIfStopped();
  }

  // The faults stop; the writer, its watcher and its operator go on until every action is final.
  node.deliver();
  for (let round = 0; ; round++) {
    await Promise.all(running.splice(0));
    const counts = await statuses(sales.ids);
    if (Object.keys(counts).every((status) => status === "confirmed" || status.startsWith("onchain_"))) break;
    if (round === 200) {
      const transactions = await ledger.sql(`SELECT nonce, attempt, status, tx_hash FROM chain_transactions WHERE signer = $1 ORDER BY nonce, attempt`, [
        wallet.address,
      ]);
      throw new Error(
        `not every action became final: ${JSON.stringify(counts)}; transactions ${JSON.stringify(transactions)}; stop ${JSON.stringify(await stops.stateOf(wallet.address), (_, v: unknown) => (typeof v === "bigint" ? v.toString() : v))}; node ${node.describe(wallet.address)}`,
      );
    }
    await reconcileIfStopped();
    flush();
    await Promise.all(running.splice(0));
    node.mine();
    await watcher.poll();
    await watcher.poll();
    tick();
  }
  expect(node.violations).toEqual([]);
  expect(await statuses(sales.ids)).toEqual(sales.ids.length === 0 ? {} : { confirmed: sales.ids.length });
}

describe("the chain writer's order under random faults", () => {
  it("never mines an action before what it depends on, and confirms every action once the faults stop", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(round, { minLength: 1, maxLength: 6 }), (rounds) => run(rounds.flat())),
      { numRuns: 25, endOnFailure: true, ...(process.env.PROPERTY_SEED ? { seed: Number(process.env.PROPERTY_SEED), path: process.env.PROPERTY_PATH } : {}) },
    );
  }, 240_000);
});
