import type { ChildProcess } from "node:child_process";

import type { Exit } from "../../scripts/stack/owned-process";
import { type ServiceRole, spawnService } from "../../scripts/stack/service-process";

export interface WorkerProcess {
  child: ChildProcess;
  /** Resolves when the process has exited, with its exit code or the signal that killed it. */
  exited: Promise<Exit>;
  /** What it wrote to stdout and stderr so far (for failure messages). */
  output: () => string;
  /** Kills it (SIGKILL) if it still runs and waits for its exit. */
  kill: () => Promise<void>;
}

/**
 * The service's worker role (or the role APP_ROLE in `env` names) as a real child process, with `env`
 * on top of this process's environment.
 */
export function startWorkerProcess(env: Record<string, string>): WorkerProcess {
  const worker = spawnService({
    role: (env.APP_ROLE as ServiceRole | undefined) ?? "worker",
    env: { ...process.env, APP_MODE: "test", PORT: "0", MIGRATE_AT_BOOT: "false", LOG_LEVEL: "warn", CALLBACK_DELIVERY: "false", ...env },
    output: "pipe",
  });
  let output = "";
  worker.child.stdout?.on("data", (chunk: Buffer) => (output += chunk.toString()));
  worker.child.stderr?.on("data", (chunk: Buffer) => (output += chunk.toString()));
  return {
    child: worker.child,
    exited: worker.exited,
    output: () => output,
    kill: async () => void (await worker.stop("SIGKILL")),
  };
}
