import { join } from "node:path";

import { NODE_GUARD_ARGS, type OwnedProcess, spawnOwned } from "./owned-process";

export type ServiceRole = "api" | "worker" | "all";

/** The service (`src/main.ts`) in one role, as its own process, with `env` on top of this process's environment. */
export function spawnService(role: ServiceRole, env: Record<string, string>, logDir: string, name: string = role): OwnedProcess {
  // BENCH_SERVICE_NODE_ARGS passes profiling flags (--cpu-prof and the like) to the service only.
  const nodeArgs = (process.env.BENCH_SERVICE_NODE_ARGS ?? "").split(" ").filter(Boolean);
  return spawnOwned(
    name,
    process.execPath,
    [...nodeArgs, ...NODE_GUARD_ARGS, "src/main.ts"],
    { ...process.env, ...env, APP_ROLE: role },
    join(logDir, `${name}.log`),
  );
}

/** Waits until the service at `baseUrl` answers /health with 2xx. */
export async function waitForHealth(baseUrl: string, service: OwnedProcess, timeoutMs = 120_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (!service.running()) throw new Error(`${service.name} exited before it was healthy; see ${service.logFile}`);
    if (
      await fetch(`${baseUrl}/health`).then(
        (response) => response.ok,
        () => false,
      )
    )
      return;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`${service.name} did not become healthy within ${timeoutMs / 1000} s; see ${service.logFile}`);
}
