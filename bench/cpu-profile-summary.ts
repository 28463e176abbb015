import { readFileSync } from "node:fs";
import { relative } from "node:path";

/**
 * Self time of a `.cpuprofile` (what `--cpu-prof` writes; see BENCH_CPU_PROFILE_DIR in
 * bench/README.md) by function and by file, the top entries of each:
 * `node -r @swc-node/register bench/cpu-profile-summary.ts <file.cpuprofile> [--top 15] [--from s] [--to s]`.
 * `--from`/`--to` keep only the samples taken in that window, in seconds from the profile's start.
 */
interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}
interface ProfileNode {
  id: number;
  callFrame: CallFrame;
}
export interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

export interface SelfTime {
  name: string;
  ms: number;
  share: number;
}

export interface ProfileSummary {
  totalMs: number;
  /** Sampled time not idle, (program) or (garbage collector). */
  busyMs: number;
  byFunction: SelfTime[];
  byFile: SelfTime[];
}

export function summarizeProfile(profile: CpuProfile, window: { fromS?: number; toS?: number } = {}): ProfileSummary {
  const frames = new Map(profile.nodes.map((node) => [node.id, node.callFrame]));
  const byFunction = new Map<string, number>();
  const byFile = new Map<string, number>();
  let at = 0;
  let totalUs = 0;
  let idleUs = 0;
  for (const [index, id] of profile.samples.entries()) {
    const delta = profile.timeDeltas[index] ?? 0;
    at += delta;
    if (window.fromS !== undefined && at < window.fromS * 1e6) continue;
    if (window.toS !== undefined && at > window.toS * 1e6) continue;
    const frame = frames.get(id);
    if (!frame) continue;
    totalUs += delta;
    if (frame.functionName === "(idle)") idleUs += delta;
    const file = fileOf(frame.url) || frame.functionName;
    const name = `${frame.functionName || "(anonymous)"} ${file}${frame.url ? `:${frame.lineNumber + 1}` : ""}`;
    byFunction.set(name, (byFunction.get(name) ?? 0) + delta);
    byFile.set(file, (byFile.get(file) ?? 0) + delta);
  }
  const ranked = (map: Map<string, number>) =>
    [...map.entries()].sort((a, b) => b[1] - a[1]).map(([name, us]) => ({ name, ms: us / 1000, share: totalUs > 0 ? us / totalUs : 0 }));
  return { totalMs: totalUs / 1000, busyMs: (totalUs - idleUs) / 1000, byFunction: ranked(byFunction), byFile: ranked(byFile) };
}

/** A path relative to the project, or from node_modules on for a package's file. */
function fileOf(url: string): string {
  if (!url) return "";
  const path = url.replace(/^file:\/\//, "");
  const modules = path.lastIndexOf("node_modules/");
  if (modules >= 0) return path.slice(modules);
  return path.startsWith("/") ? relative(process.cwd(), path) : path;
}

function print(summary: ProfileSummary, top: number): void {
  console.log(`sampled ${(summary.totalMs / 1000).toFixed(2)} s, of which not idle ${(summary.busyMs / 1000).toFixed(2)} s`);
  const rows = (entries: SelfTime[]) =>
    entries.slice(0, top).map((entry) => ({ "self ms": Math.round(entry.ms), share: `${(entry.share * 100).toFixed(1)}%`, name: entry.name }));
  console.log("Self time by function:");
  console.table(rows(summary.byFunction));
  console.log("Self time by file:");
  console.table(rows(summary.byFile));
}

if (require.main === module) {
  const [file, ...rest] = process.argv.slice(2);
  if (!file) {
    console.error("usage: bench/cpu-profile-summary.ts <file.cpuprofile> [--top 15] [--from s] [--to s]");
    process.exitCode = 1;
  } else {
    const option = (name: string) => {
      const at = rest.indexOf(name);
      return at >= 0 ? Number(rest[at + 1]) : undefined;
    };
    print(summarizeProfile(JSON.parse(readFileSync(file, "utf8")) as CpuProfile, { fromS: option("--from"), toS: option("--to") }), option("--top") ?? 15);
  }
}
