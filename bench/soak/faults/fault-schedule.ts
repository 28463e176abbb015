import type { Stack } from "../../stack/stack";
import { type RestoreRecord, restoreFromDump } from "./restore-fault";

export type FaultKind =
  | "worker killed (SIGKILL) and restarted"
  | "Redis restarted (SHUTDOWN NOSAVE)"
  | "chain node unreachable"
  | "chain node killed (SIGKILL), restarted from its state file"
  | "node refuses every transaction: oversized data"
  | "node refuses every transaction: transaction underpriced"
  | "PostgreSQL unreachable"
  | "database restored from a dump taken under load, reconciled";

/** The names `npm run faults -- --faults` takes, in the rotation's order. */
export const FAULT_NAMES = ["worker", "redis", "unreachable", "node-kill", "oversized", "underpriced", "postgres", "restore"] as const;
export type FaultName = (typeof FAULT_NAMES)[number];

export interface FaultRecord {
  kind: FaultKind;
  startedAt: number;
  /**
   * When the fault was over: the new worker spawned, Redis accepting connections, the node reachable,
   * the restarted node answering, the node's refusals lifted.
   */
  endedAt: number;
  /** What the fault did, when there is more to say (the blocks a killed node lost). */
  note?: string;
}

/** What an injection tells beyond its duration: a note, and its real start when it waited for its moment first. */
type FaultOutcome = Partial<Pick<FaultRecord, "note" | "startedAt">>;

export interface FaultSettings {
  everyMs: number;
  redisDownMs: number;
  chainDownMs: number;
  /** Between the node's SIGKILL and its restart. */
  nodeDownMs: number;
  /** Seconds between writes of the node's state file: what a SIGKILL can lose. */
  nodeStateIntervalSeconds: number;
  /** How long the node refuses every transaction. */
  refusalMs: number;
  /** How long PostgreSQL is unreachable to the service processes. */
  databaseDownMs: number;
  /** The faults of the rotation, in its order. */
  rotation: readonly FaultName[];
  /** restore: how long the load goes on between the dump and the services' stop. */
  restoreGoOnMs: number;
}

/** What the restore fault needs of the run: where to write, and what to tell the load generator; its records go to `records`. */
export interface RestoreHooks {
  logDir: string;
  restored: (restore: Omit<RestoreRecord, "report" | "reportFile">) => Promise<void>;
  records: RestoreRecord[];
}

/**
 * Injects one fault every `everyMs` during the load, in turn: a worker SIGKILLed and started again
 * (as a process manager would; with several workers, each in its turn); the run's Redis shut down without saving and started empty on the same
 * port; the chain node made unreachable (connections refused, open ones cut) by closing the TCP proxy
 * the service reaches it through, then reopening it, the node itself running on; the node (Anvil)
 * SIGKILLed and started again on the same port from its state file, which it writes every few
 * seconds, so that it comes back without its last blocks and its transaction pool; and the node
 * refusing every transaction as geth/bor do, `oversized data` then, the next time, `transaction
 * underpriced` (the production-node proxy answers eth_sendRawTransaction with the refusal and does
 * not forward it); PostgreSQL made unreachable to the service processes (the TCP proxy they reach
 * it through closed: connections refused, open ones cut, as when the server stops), the server itself
 * running on for the rest of the machine; and the database dumped under load and restored a little later, with
 * `ledger reconcile` before the services start again (restore-fault.ts).
 */
export async function runFaultSchedule(
  stack: Stack,
  settings: FaultSettings,
  loadStartedAt: number,
  loadDurationMs: number,
  restoreHooks?: RestoreHooks,
): Promise<FaultRecord[]> {
  let workerKills = 0;
  const all: { name: FaultName; kind: FaultKind; inject: () => Promise<FaultOutcome | void>; lastsMs: number }[] = [
    { name: "worker", kind: "worker killed (SIGKILL) and restarted", inject: () => killWorker(stack, workerKills++), lastsMs: 0 },
    { name: "redis", kind: "Redis restarted (SHUTDOWN NOSAVE)", inject: () => restartRedis(stack, settings.redisDownMs), lastsMs: settings.redisDownMs },
    { name: "unreachable", kind: "chain node unreachable", inject: () => cutChain(stack, settings.chainDownMs), lastsMs: settings.chainDownMs },
    {
      name: "node-kill",
      kind: "chain node killed (SIGKILL), restarted from its state file",
      inject: () => killNode(stack, settings.nodeDownMs),
      lastsMs: settings.nodeDownMs + settings.nodeStateIntervalSeconds * 1000,
    },
    {
      name: "oversized",
      kind: "node refuses every transaction: oversized data",
      inject: () => refuseTransactions(stack, "oversized data", settings.refusalMs),
      lastsMs: settings.refusalMs,
    },
    {
      name: "underpriced",
      kind: "node refuses every transaction: transaction underpriced",
      inject: () => refuseTransactions(stack, "transaction underpriced", settings.refusalMs),
      lastsMs: settings.refusalMs,
    },
    { name: "postgres", kind: "PostgreSQL unreachable", inject: () => cutDatabase(stack, settings.databaseDownMs), lastsMs: settings.databaseDownMs },
    {
      name: "restore",
      kind: "database restored from a dump taken under load, reconciled",
      inject: () => restore(stack, settings.restoreGoOnMs, restoreHooks),
      // The dump, the load after it, the restore, the reconcile and the services' restart.
      lastsMs: settings.restoreGoOnMs + 60_000,
    },
  ];
  const faults = settings.rotation.map((name) => all.find((fault) => fault.name === name) as (typeof all)[number]);
  const records: FaultRecord[] = [];
  for (let index = 0; ; index++) {
    const fault = faults[index % faults.length];
    const at = loadStartedAt + (index + 1) * settings.everyMs;
    if (at + fault.lastsMs >= loadStartedAt + loadDurationMs) return records;
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, at - Date.now())));
    const injectedAt = Date.now();
    const outcome = (await fault.inject()) ?? {};
    const startedAt = outcome.startedAt ?? injectedAt;
    const { note } = outcome;
    records.push({ kind: fault.kind, startedAt, endedAt: Date.now(), note });
    console.log(
      `  fault at ${((startedAt - loadStartedAt) / 1000).toFixed(0)} s: ${fault.kind}, over after ${((Date.now() - startedAt) / 1000).toFixed(1)} s${note ? ` (${note})` : ""}`,
    );
  }
}

/** The `index`-th worker fault kills the workers in turn: worker-1, worker-2, …, worker-M, worker-1, … */
async function killWorker(stack: Stack, index: number): Promise<FaultOutcome> {
  const { workerNames } = stack.services;
  const name = workerNames[index % workerNames.length];
  const killed = stack.services.current(name)?.name ?? name;
  await stack.services.killWorker(name);
  const started = stack.services.startWorker(name);
  return {
    note: `${killed} killed (${workerNames.length === 1 ? "the only worker" : `workers killed in turn, ${workerNames.length} running`}), ${started.name} started`,
  };
}

async function restartRedis(stack: Stack, downMs: number): Promise<void> {
  await stack.redis.shutdown();
  await new Promise((resolve) => setTimeout(resolve, downMs));
  await stack.redis.start();
}

async function cutChain(stack: Stack, downMs: number): Promise<void> {
  if (!stack.proxy) throw new Error("the stack has no chain proxy to cut");
  await stack.proxy.close();
  await new Promise((resolve) => setTimeout(resolve, downMs));
  await stack.proxy.open();
}

async function cutDatabase(stack: Stack, downMs: number): Promise<void> {
  if (!stack.databaseProxy) throw new Error("the stack has no database proxy to cut");
  await stack.databaseProxy.close();
  await new Promise((resolve) => setTimeout(resolve, downMs));
  await stack.databaseProxy.open();
}

async function killNode(stack: Stack, downMs: number): Promise<FaultOutcome> {
  if (!stack.chain.killAndRestart) throw new Error("the stack's chain node cannot be killed and restarted (Anvil with a state file only)");
  const { killedAt, blockBefore, blockAfter } = await stack.chain.killAndRestart(downMs);
  return {
    startedAt: killedAt,
    note: `killed at block ${blockBefore}, back at block ${blockAfter}: ${blockBefore - blockAfter} blocks and the transaction pool lost`,
  };
}

async function restore(stack: Stack, goOnMs: number, hooks: RestoreHooks | undefined): Promise<FaultOutcome> {
  if (!hooks) throw new Error("the restore fault needs the run's restore hooks");
  const startedAt = Date.now();
  const { record, note } = await restoreFromDump(stack, hooks.logDir, hooks.records.length + 1, goOnMs, hooks.restored);
  hooks.records.push(record);
  return { startedAt, note };
}

async function refuseTransactions(stack: Stack, message: string, lastsMs: number): Promise<FaultOutcome> {
  if (!stack.nodeProxy) throw new Error("the stack has no production-node proxy to refuse transactions with");
  const refusedBefore = stack.nodeProxy.sent.filter((sent) => sent.refusal === message).length;
  const lift = stack.nodeProxy.refuseTransactions(message);
  await new Promise((resolve) => setTimeout(resolve, lastsMs));
  lift();
  return { note: `${stack.nodeProxy.sent.filter((sent) => sent.refusal === message).length - refusedBefore} transactions refused` };
}
