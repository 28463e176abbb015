import { existsSync, mkdirSync } from "node:fs";
import { join, resolve } from "node:path";

import type { OwnedProcess } from "../../scripts/stack/owned-process";
import { type ServiceRole, spawnService } from "../../scripts/stack/service-process";

/**
 * The service (`src/main.ts`) in one role, as its own process, with `env` on top of this process's
 * environment and its output in `<logDir>/<name>.log`.
 */
export function spawnBenchService(role: ServiceRole, env: Record<string, string>, logDir: string, name: string = role): OwnedProcess {
  return spawnService({ role, name, env: { ...process.env, ...env }, output: { file: join(logDir, `${name}.log`) }, nodeArgs: serviceNodeArgs(name) });
}

/**
 * `node` options for the service only: BENCH_SERVICE_NODE_ARGS as given (space-separated), and with
 * BENCH_CPU_PROFILE_DIR a CPU profile of each service process, written to that folder when it stops
 * (`<name>-<pid>.cpuprofile`; the run stops its services with SIGTERM, whose graceful exit writes it).
 */
/** The CPU profile files a service process named `name` with this pid wrote (none without BENCH_CPU_PROFILE_DIR). */
export function cpuProfilesOf(name: string, pid: number, environment: NodeJS.ProcessEnv = process.env): string[] {
  const profileDir = environment.BENCH_CPU_PROFILE_DIR;
  if (!profileDir) return [];
  const file = join(resolve(profileDir), `${name}-${pid}.cpuprofile`);
  return existsSync(file) ? [file] : [];
}

export function serviceNodeArgs(name: string, environment: NodeJS.ProcessEnv = process.env): string[] {
  const args = (environment.BENCH_SERVICE_NODE_ARGS ?? "").split(" ").filter(Boolean);
  const profileDir = environment.BENCH_CPU_PROFILE_DIR;
  if (profileDir) {
    const dir = resolve(profileDir);
    mkdirSync(dir, { recursive: true });
    args.push("--cpu-prof", `--cpu-prof-dir=${dir}`, `--cpu-prof-name=${name}-\${pid}.cpuprofile`);
  }
  return args;
}
