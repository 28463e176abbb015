import { mkdirSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

import { type CpuProfile, summarizeProfile } from "../cpu-profile-summary";

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

export interface CpuSummary {
  totalMs: number;
  /** Sampled time outside `(idle)`. */
  busyMs: number;
  functions: { name: string; ms: number; share: number }[];
  files: { name: string; ms: number; share: number }[];
}

/** Self time per function and per file, the `top` largest of each (bench/cpu-profile-summary.ts ranks them). */
export function summarizeCpuProfile(file: string, top = 15): CpuSummary {
  const summary = summarizeProfile(JSON.parse(readFileSync(file, "utf8")) as CpuProfile);
  return { totalMs: summary.totalMs, busyMs: summary.busyMs, functions: summary.byFunction.slice(0, top), files: summary.byFile.slice(0, top) };
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
