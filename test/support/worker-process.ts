import { type ChildProcess, spawn } from "node:child_process";
import { join } from "node:path";

const ROOT = join(__dirname, "..", "..");

export interface WorkerProcess {
  child: ChildProcess;
  /** Resolves when the process has exited, with its exit code or the signal that killed it. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** What it wrote to stdout and stderr so far (for failure messages). */
  output: () => string;
  /** Kills it (SIGKILL) if it still runs and waits for its exit. */
  kill: () => Promise<void>;
}

/**
 * The service's worker role as a real child process (`node -r ts-node/register/transpile-only
 * src/main.ts`), with `env` on top of this process's environment.
 */
export function startWorkerProcess(env: Record<string, string>): WorkerProcess {
  const child = spawn(process.execPath, ["-r", "ts-node/register/transpile-only", "src/main.ts"], {
    cwd: ROOT,
    env: { ...process.env, APP_MODE: "test", APP_ROLE: "worker", PORT: "0", MIGRATE_AT_BOOT: "false", LOG_LEVEL: "warn", CALLBACK_DELIVERY: "false", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout?.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve({ code: child.exitCode, signal: child.signalCode });
    else child.once("exit", (code, signal) => resolve({ code, signal }));
  });
  return {
    child,
    exited,
    output: () => output,
    kill: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
      await exited;
    },
  };
}
