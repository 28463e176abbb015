import { mkdirSync, readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";

/**
 * CPU profiles of the processes a benchmark starts: with BENCH_CPU_PROFILE_DIR set, each service
 * process runs with `--cpu-prof` into a folder of its own under it (written when the process exits),
 * and `summarizeCpuProfile` reads one back as self time per function and per file.
 */
export const CPU_PROFILE_DIR_ENV = "BENCH_CPU_PROFILE_DIR";

/** The folder a process named `name` profiles into, created; undefined when profiling is off. */
export function cpuProfileDir(name: string): string | undefined {
  const root = process.env[CPU_PROFILE_DIR_ENV];
  if (!root) return undefined;
  const dir = join(root, name);
  mkdirSync(dir, { recursive: true });
  return dir;
}

/** The `node` options that make a process profile into `dir`. */
export const cpuProfileArgs = (dir: string | undefined): string[] => (dir ? ["--cpu-prof", `--cpu-prof-dir=${dir}`] : []);

/** The profiles written into `dir`, optionally only those of process `pid` (Node names them …<pid>.<tid>.<seq>.cpuprofile). */
export function cpuProfilesIn(dir: string, pid?: number): string[] {
  return readdirSync(dir)
    .filter((file) => file.endsWith(".cpuprofile") && (pid === undefined || file.split(".").at(-4) === String(pid)))
    .map((file) => join(dir, file));
}

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}

interface Profile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

export interface CpuSummary {
  totalMs: number;
  /** Sampled time outside `(idle)`. */
  busyMs: number;
  functions: { name: string; ms: number; share: number }[];
  files: { name: string; ms: number; share: number }[];
}

/** Self time per function and per file, the `top` largest of each, shares of the busy time. */
export function summarizeCpuProfile(file: string, top = 15): CpuSummary {
  const profile = JSON.parse(readFileSync(file, "utf8")) as Profile;
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const selfUs = new Map<number, number>();
  // timeDeltas[i] is the time before samples[i]; the time a sample stands for is the next delta.
  for (let i = 0; i < profile.samples.length; i++) {
    const us = profile.timeDeltas[i + 1] ?? 0;
    selfUs.set(profile.samples[i], (selfUs.get(profile.samples[i]) ?? 0) + us);
  }
  const functions = new Map<string, number>();
  const files = new Map<string, number>();
  let busyUs = 0;
  let totalUs = 0;
  for (const [id, us] of selfUs) {
    const { functionName, url, lineNumber } = (byId.get(id) as ProfileNode).callFrame;
    totalUs += us;
    if (functionName === "(idle)") continue;
    busyUs += us;
    const where = shortUrl(url);
    const fn = `${functionName || "(anonymous)"} ${where ? `${where}:${lineNumber + 1}` : ""}`.trim();
    functions.set(fn, (functions.get(fn) ?? 0) + us);
    const fileKey = where || functionName;
    files.set(fileKey, (files.get(fileKey) ?? 0) + us);
  }
  const rank = (map: Map<string, number>) =>
    [...map]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([name, us]) => ({ name, ms: us / 1000, share: busyUs === 0 ? 0 : us / busyUs }));
  return { totalMs: totalUs / 1000, busyMs: busyUs / 1000, functions: rank(functions), files: rank(files) };
}

function shortUrl(url: string): string {
  if (!url) return "";
  const path = url.startsWith("file://") ? decodeURIComponent(new URL(url).pathname) : url;
  const nodeModules = path.lastIndexOf("node_modules/");
  if (nodeModules >= 0) return path.slice(nodeModules);
  return path.startsWith("/") ? relative(process.cwd(), path) : path;
}

/** The summary as text: two ranked lists. */
export function formatCpuSummary(title: string, summary: CpuSummary): string {
  const line = (entry: { name: string; ms: number; share: number }) =>
    `  ${entry.ms.toFixed(0).padStart(7)} ms ${(entry.share * 100).toFixed(1).padStart(5)}%  ${entry.name}`;
  return [
    `${title}: ${summary.busyMs.toFixed(0)} ms busy of ${summary.totalMs.toFixed(0)} ms sampled`,
    " self time by function:",
    ...summary.functions.map(line),
    " self time by file:",
    ...summary.files.map(line),
  ].join("\n");
}

// `node -r @swc-node/register bench/stack/cpu-profile.ts <file.cpuprofile>…` prints each one's summary.
if (require.main === module) {
  for (const file of process.argv.slice(2)) console.log(formatCpuSummary(file, summarizeCpuProfile(file)) + "\n");
}
