import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";

/** One process as /proc/<pid>/stat tells it. */
interface ProcessStat {
  pid: number;
  ppid: number;
  comm: string;
  /** User and system time, in clock ticks. */
  ticks: number;
  /** Start time since boot, in clock ticks: with the pid, it tells a process from a later one with the same pid. */
  startedAt: number;
}

/** What each group of processes used during the sampled time. */
export interface CpuShare {
  group: string;
  /** CPU seconds. */
  seconds: number;
  /** Seconds of CPU per second of the sampled time: 1 is one core busy all the time. */
  cores: number;
  /** For the rest of the machine: its largest users by command name, to tell whose work it was. */
  detail?: string;
}

export interface CpuUsage {
  wallSeconds: number;
  /** The machine's cores, and how busy they were on average (0 to 1), from /proc/stat. */
  machineCores: number;
  machineBusy: number;
  groups: CpuShare[];
}

const CLOCK_TICKS_PER_SECOND = clockTicks();
const REST = "rest of the machine";

/**
 * The CPU each process group uses while a run measures, from /proc (Linux): `postgres` (the whole
 * server, every backend included), the service processes by their names (api, api-2, worker-1, …),
 * `anvil`, this run's own Redis, this process (the load generator), the run's other processes, and
 * the rest of the machine. Every process is sampled every `intervalMs`: a process that ends between
 * two samples loses what it used since the last one, which is why the interval is short.
 */
export class CpuSampler {
  private readonly first = new Map<string, number>();
  private readonly last = new Map<string, { group: string; comm: string; ticks: number }>();
  private timer: NodeJS.Timeout | null = null;
  private startedAt = 0;
  private machineAtStart = machineTicks();

  /** `named()`: the service processes running now, by name (ServiceSupervisor.processes()). */
  constructor(private readonly named: () => { name: string; pid: number }[]) {}

  start(intervalMs = 500): void {
    this.startedAt = performance.now();
    this.machineAtStart = machineTicks();
    this.sample(true);
    this.timer = setInterval(() => this.sample(false), intervalMs);
  }

  stop(): CpuUsage {
    if (this.timer) clearInterval(this.timer);
    this.sample(false);
    const wallSeconds = (performance.now() - this.startedAt) / 1000;
    const machine = machineTicks();
    const total = machine.total - this.machineAtStart.total;
    const idle = machine.idle - this.machineAtStart.idle;
    const byGroup = new Map<string, number>();
    const restByCommand = new Map<string, number>();
    for (const [key, { group, comm, ticks }] of this.last) {
      const used = ticks - (this.first.get(key) ?? 0);
      byGroup.set(group, (byGroup.get(group) ?? 0) + used);
      if (group === REST) restByCommand.set(comm, (restByCommand.get(comm) ?? 0) + used);
    }
    const seconds = (ticks: number) => ticks / CLOCK_TICKS_PER_SECOND;
    const restDetail = [...restByCommand.entries()]
      .filter(([, ticks]) => seconds(ticks) >= 0.1)
      .sort((a, b) => b[1] - a[1])
      .slice(0, 4)
      .map(([comm, ticks]) => `${comm} ${seconds(ticks).toFixed(1)} s`)
      .join(", ");
    const groups = [...byGroup.entries()]
      .map(([group, ticks]) => ({ group, seconds: seconds(ticks), cores: seconds(ticks) / wallSeconds, ...(group === REST ? { detail: restDetail } : {}) }))
      .sort((a, b) => b.seconds - a.seconds);
    const machineCores = readFileSync("/proc/stat", "utf8").match(/^cpu\d+ /gm)?.length ?? 1;
    return { wallSeconds, machineCores, machineBusy: total > 0 ? 1 - idle / total : 0, groups };
  }

  private sample(atStart: boolean): void {
    const stats = allProcesses();
    const byPid = new Map(stats.map((stat) => [stat.pid, stat]));
    const names = new Map(this.named().map(({ name, pid }) => [pid, name]));
    for (const stat of stats) {
      const key = `${stat.pid}:${stat.startedAt}`;
      // A process born after the start counts from zero; one seen at the start, from what it had used then.
      if (!this.first.has(key)) this.first.set(key, atStart ? stat.ticks : 0);
      this.last.set(key, { group: groupOf(stat, byPid, names), comm: stat.comm, ticks: stat.ticks });
    }
  }
}

function groupOf(stat: ProcessStat, byPid: Map<number, ProcessStat>, names: Map<number, string>): string {
  if (stat.comm === "postgres") return "postgres";
  if (stat.comm.startsWith("anvil")) return "anvil";
  // A service process is its own group, and so is anything it started.
  for (let pid: number | undefined = stat.pid; pid !== undefined && pid > 1; pid = byPid.get(pid)?.ppid) {
    const name = names.get(pid);
    if (name !== undefined) return name;
    if (pid === process.pid) {
      if (stat.pid === process.pid) return "this run (load generator)";
      return stat.comm === "redis-server" ? "redis (the run's)" : "the run's other processes";
    }
  }
  return REST;
}

function allProcesses(): ProcessStat[] {
  const stats: ProcessStat[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    let text: string;
    try {
      text = readFileSync(`/proc/${entry}/stat`, "utf8");
    } catch {
      continue; // ended since the listing
    }
    // The command name is in parentheses and may itself hold spaces and parentheses.
    const close = text.lastIndexOf(")");
    const comm = text.slice(text.indexOf("(") + 1, close);
    const fields = text.slice(close + 2).split(" ");
    stats.push({ pid: Number(entry), ppid: Number(fields[1]), comm, ticks: Number(fields[11]) + Number(fields[12]), startedAt: Number(fields[19]) });
  }
  return stats;
}

/** All CPU time and idle time of the machine so far, in clock ticks (/proc/stat's first line; iowait counts as idle). */
function machineTicks(): { total: number; idle: number } {
  const values = readFileSync("/proc/stat", "utf8").split("\n")[0].trim().split(/\s+/).slice(1, 9).map(Number);
  return { total: values.reduce((a, b) => a + b, 0), idle: values[3] + values[4] };
}

function clockTicks(): number {
  try {
    return Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim()) || 100;
  } catch {
    return 100;
  }
}

/** The groups as table rows, with the machine's busy share. */
export function cpuRows(usage: CpuUsage): Record<string, string | number>[] {
  return usage.groups
    .filter((group) => group.seconds >= 0.05)
    .map((group) => ({
      process: group.detail ? `${group.group} (${group.detail})` : group.group,
      "CPU s": group.seconds.toFixed(1),
      cores: group.cores.toFixed(2),
    }))
    .concat([{ process: `machine: ${usage.machineCores} cores`, "CPU s": "", cores: `${(usage.machineBusy * usage.machineCores).toFixed(2)} busy` }]);
}
