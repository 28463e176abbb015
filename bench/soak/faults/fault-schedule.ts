import type { Stack } from "../../stack/stack";

export type FaultKind = "worker killed (SIGKILL) and restarted" | "Redis restarted (SHUTDOWN NOSAVE)" | "chain node unreachable";

export interface FaultRecord {
  kind: FaultKind;
  startedAt: number;
  /** When the fault was over: the new worker spawned, Redis accepting connections, the node reachable. */
  endedAt: number;
}

export interface FaultSettings {
  everyMs: number;
  redisDownMs: number;
  chainDownMs: number;
}

/**
 * Injects one fault every `everyMs` during the load, in turn: the worker SIGKILLed and started again
 * (as a process manager would), the run's Redis shut down without saving and started empty on the same
 * port, and the chain node made unreachable (connections refused, open ones cut) by closing the TCP
 * proxy the service reaches it through, then reopening it. The node itself keeps running: a Hardhat
 * node keeps its chain in memory only, so stopping it would replace the chain, not interrupt it.
 */
export async function runFaultSchedule(stack: Stack, settings: FaultSettings, loadStartedAt: number, loadDurationMs: number): Promise<FaultRecord[]> {
  const faults: { kind: FaultKind; inject: () => Promise<void>; lastsMs: number }[] = [
    { kind: "worker killed (SIGKILL) and restarted", inject: () => killWorker(stack), lastsMs: 0 },
    { kind: "Redis restarted (SHUTDOWN NOSAVE)", inject: () => restartRedis(stack, settings.redisDownMs), lastsMs: settings.redisDownMs },
    { kind: "chain node unreachable", inject: () => cutChain(stack, settings.chainDownMs), lastsMs: settings.chainDownMs },
  ];
  const records: FaultRecord[] = [];
  for (let index = 0; ; index++) {
    const fault = faults[index % faults.length];
    const at = loadStartedAt + (index + 1) * settings.everyMs;
    if (at + fault.lastsMs >= loadStartedAt + loadDurationMs) return records;
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, at - Date.now())));
    const startedAt = Date.now();
    await fault.inject();
    records.push({ kind: fault.kind, startedAt, endedAt: Date.now() });
    console.log(`  fault at ${((startedAt - loadStartedAt) / 1000).toFixed(0)} s: ${fault.kind}, over after ${((Date.now() - startedAt) / 1000).toFixed(1)} s`);
  }
}

async function killWorker(stack: Stack): Promise<void> {
  await stack.services.killWorker();
  stack.services.startWorker();
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
