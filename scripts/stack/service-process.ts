import { NODE_LIFELINE_ARGS, type OwnedProcess, type ProcessOutput, spawnOwned } from "./owned-process";

export type ServiceRole = "api" | "worker" | "all";

export interface ServiceProcessOptions {
  role: ServiceRole;
  /** Its whole environment; APP_ROLE is set from `role`. */
  env: NodeJS.ProcessEnv;
  /** How it is named in messages (default: the role). */
  name?: string;
  output?: ProcessOutput;
  /** `node` options before the service's own (profiling flags, say). */
  nodeArgs?: string[];
  /** What it gets when this process exits while it still runs (default SIGKILL; SIGTERM: its graceful shutdown). */
  signalAtExit?: NodeJS.Signals;
}

/** The service (`src/main.ts` through the TypeScript runner) in one role, as a process of its own under a lifeline. */
export function spawnService(options: ServiceProcessOptions): OwnedProcess {
  return spawnOwned({
    name: options.name ?? options.role,
    command: process.execPath,
    args: [...(options.nodeArgs ?? []), ...NODE_LIFELINE_ARGS, "src/main.ts"],
    env: { ...options.env, APP_ROLE: options.role },
    output: options.output,
    signalAtExit: options.signalAtExit,
  });
}

/** Waits until the service at `baseUrl` answers /health with 2xx; fails when it exits first. */
export async function waitForHealth(baseUrl: string, service: OwnedProcess, timeoutMs = 120_000): Promise<void> {
  const seeLog = service.logFile ? `; see ${service.logFile}` : "";
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (!service.running()) throw new Error(`${service.name} exited before it was healthy${seeLog}`);
    if (await answersHealth(baseUrl)) return;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`${service.name} did not become healthy within ${timeoutMs / 1000} s${seeLog}`);
}

export function answersHealth(baseUrl: string): Promise<boolean> {
  return fetch(`${baseUrl}/health`).then(
    (response) => response.ok,
    () => false,
  );
}
