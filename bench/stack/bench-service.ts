import { join } from "node:path";

import type { OwnedProcess } from "../../scripts/stack/owned-process";
import { type ServiceRole, spawnService } from "../../scripts/stack/service-process";
import { cpuProfileArgs, cpuProfileDir } from "./cpu-profile";

/**
 * The service (`src/main.ts`) in one role, as its own process, with `env` on top of this process's
 * environment and its output in `<logDir>/<name>.log`.
 */
export function spawnBenchService(role: ServiceRole, env: Record<string, string>, logDir: string, name: string = role): OwnedProcess {
  // BENCH_SERVICE_NODE_ARGS passes profiling flags (--cpu-prof and the like) to the service only.
  // BENCH_CPU_PROFILE_DIR profiles each service process into <dir>/<name>/ (bench/stack/cpu-profile.ts).
  const nodeArgs = [...(process.env.BENCH_SERVICE_NODE_ARGS ?? "").split(" ").filter(Boolean), ...cpuProfileArgs(cpuProfileDir(name))];
  return spawnService({ role, name, env: { ...process.env, ...env }, output: { file: join(logDir, `${name}.log`) }, nodeArgs });
}
