import { join } from "node:path";

import type { OwnedProcess } from "../../scripts/stack/owned-process";
import { type ServiceRole, spawnService } from "../../scripts/stack/service-process";
import { cpuProfileArgs, cpuProfileDir, cpuProfilesIn } from "./cpu-profile";

/**
 * The service (`src/main.ts`) in one role, as its own process, with `env` on top of this process's
 * environment and its output in `<logDir>/<name>.log`.
 */
export function spawnBenchService(role: ServiceRole, env: Record<string, string>, logDir: string, name: string = role): OwnedProcess {
  return spawnService({ role, name, env: { ...process.env, ...env }, output: { file: join(logDir, `${name}.log`) }, nodeArgs: serviceNodeArgs(name) });
}

/**
 * `node` options for the service only: BENCH_SERVICE_NODE_ARGS as given (space-separated), and with
 * BENCH_CPU_PROFILE_DIR a CPU profile of the process, written when it stops into a folder named after
 * it (bench/stack/cpu-profile.ts; the run stops its services with SIGTERM, whose graceful exit writes it).
 */
export function serviceNodeArgs(name: string): string[] {
  return [...(process.env.BENCH_SERVICE_NODE_ARGS ?? "").split(" ").filter(Boolean), ...cpuProfileArgs(cpuProfileDir(name))];
}

/** The CPU profile files the service process named `name` with this pid wrote (none without BENCH_CPU_PROFILE_DIR). */
export function cpuProfilesOf(name: string, pid: number): string[] {
  const dir = cpuProfileDir(name);
  return dir ? cpuProfilesIn(dir, pid) : [];
}
