import type { RedisMemoryReading } from "../stack/redis-memory";
import type { MemoryTrack } from "../stack/rss";
import { quantile } from "../stats";
import type { CheckLine } from "./checks/check-line";
import type { Recovery } from "./faults/recovery";
import type { LoadRecord } from "./load-record";

const MIB = 2 ** 20;

export function printLoad(record: LoadRecord, rate: number): void {
  const seconds = (record.endedAt - record.startedAt) / 1000;
  console.log("\nLoad (open loop, steady rate):");
  console.table([
    {
      "target actions/s": rate,
      "load s": seconds.toFixed(1),
      planned: record.plannedActions,
      accepted: record.accepted.size,
      "accepted/s": (record.accepted.size / seconds).toFixed(1),
      refused: record.refused.length,
      unanswered: record.unanswered.length,
      "skipped (too many open requests)": record.skippedActions,
    },
  ]);
  console.log("Accepted actions by kind:");
  console.table(countBy([...record.accepted.values()].map((action) => action.kind)));
}

export function printLatency(record: LoadRecord): void {
  const routes = [...new Set(record.requests.map((request) => request.route))].sort();
  const row = (route: string, requests: LoadRecord["requests"]) => {
    const ms = requests.map((request) => request.ms);
    return {
      route,
      requests: requests.length,
      "actions/request": (requests.reduce((sum, request) => sum + request.actions, 0) / Math.max(1, requests.length)).toFixed(1),
      "p50 ms": ms.length ? quantile(ms, 0.5).toFixed(1) : "-",
      "p99 ms": ms.length ? quantile(ms, 0.99).toFixed(1) : "-",
      "max ms": ms.length ? Math.max(...ms).toFixed(1) : "-",
      unanswered: requests.filter((request) => !request.answered).length,
    };
  };
  console.log("\nRequest latency:");
  console.table([
    ...routes.map((route) =>
      row(
        route,
        record.requests.filter((request) => request.route === route),
      ),
    ),
    row("all", record.requests),
  ]);
}

export function printThroughput(record: LoadRecord, finalActions: number, drainSeconds: number): void {
  const loadSeconds = (record.endedAt - record.startedAt) / 1000;
  console.log("\nThroughput:");
  console.table([
    {
      "accepted actions/s (during the load)": (record.accepted.size / loadSeconds).toFixed(1),
      "final actions/s (load + drain)": (finalActions / (loadSeconds + drainSeconds)).toFixed(1),
      "drain after the load s": drainSeconds.toFixed(1),
    },
  ]);
}

export function printMemory(tracks: MemoryTrack[]): void {
  console.log("\nMemory (RSS from /proc/<pid>/status; start = before the load, or a restarted worker's first sample; end = after the drain or at its kill):");
  console.table(
    tracks.map((track) => ({
      process: track.name,
      pid: track.pid,
      "start MiB": (track.startBytes / MIB).toFixed(0),
      "end MiB": (track.endBytes / MIB).toFixed(0),
      "growth MiB": ((track.endBytes - track.startBytes) / MIB).toFixed(0),
      "peak MiB": (track.peakBytes / MIB).toFixed(0),
    })),
  );
}

/** Redis's memory (INFO memory) and keys before the load and after the drain. */
export interface RedisMemory {
  start: RedisMemoryReading;
  end: RedisMemoryReading;
}

export function printRedisMemory(memory: RedisMemory): void {
  console.log("\nRedis (INFO memory; start = before the load, end = after the drain; used_memory includes the dataset and the clients' buffers):");
  const row = (when: string, reading: RedisMemoryReading) => ({
    when,
    "used_memory MiB": (reading.usedMemory / MIB).toFixed(2),
    "dataset MiB": (reading.dataset / MIB).toFixed(2),
    "clients MiB": (reading.clients / MIB).toFixed(2),
    keys: reading.keys,
  });
  console.table([row("start", memory.start), row("end", memory.end)]);
  console.log(`used_memory end / start: ${(memory.end.usedMemory / memory.start.usedMemory).toFixed(2)}; keys at the end by pattern:`);
  console.table(memory.end.keyPatterns);
}

export function printLedger(byKind: Record<string, Record<string, number>>): void {
  console.log("\nLedger: actions by kind and final status:");
  console.table(byKind);
}

export function printRecovery(recovery: Recovery[]): void {
  console.log("\nFaults and recovery (seconds after each fault's end):");
  console.table(recovery);
}

export function printChecks(lines: CheckLine[]): boolean {
  console.log("\nChecks:");
  console.table(lines);
  const failed = lines.filter((line) => line.result === "FAIL");
  console.log(failed.length === 0 ? "All checks passed." : `${failed.length} check(s) FAILED.`);
  return failed.length === 0;
}

function countBy(names: string[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const name of names) counts[name] = (counts[name] ?? 0) + 1;
  return counts;
}
