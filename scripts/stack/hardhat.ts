import { spawn } from "node:child_process";
import { mkdirSync } from "node:fs";
import { join } from "node:path";

import { withLock } from "./build-lock";
import { CONTRACTS_ROOT, HARDHAT_CLI } from "./paths";

/** Held while a Hardhat command of this machine builds the contracts (see withLock). */
const BUILD_LOCK = join(CONTRACTS_ROOT, "cache", "build.lock");

/** Arguments of `node` that run a Hardhat node on hostname:port (loopback unless told otherwise). */
export function hardhatNodeArgs(port: number, hostname = "127.0.0.1"): string[] {
  return [HARDHAT_CLI, "--config", join(CONTRACTS_ROOT, "hardhat.config.ts"), "node", "--hostname", hostname, "--port", String(port)];
}

export interface HardhatRunOptions {
  /** Its whole environment (default: this process's). */
  env?: NodeJS.ProcessEnv;
  /** `errors` (the default): only its stderr, to this process's; `inherit`: all of its output. */
  output?: "errors" | "inherit";
  timeoutMs?: number;
}

/**
 * Runs a Hardhat command (`compile`, `run scripts/deploy.ts`, a task) to its end; one that builds the
 * contracts first (compile, build, run, test, unless `--no-compile`) waits for any other such command
 * started through here to end.
 */
export function runHardhat(args: string[], options: HardhatRunOptions = {}): Promise<void> {
  if (!buildsFirst(args)) return spawnHardhat(args, options);
  mkdirSync(join(CONTRACTS_ROOT, "cache"), { recursive: true });
  return withLock(BUILD_LOCK, () => spawnHardhat(args, options));
}

function buildsFirst(args: string[]): boolean {
  return ["compile", "build", "run", "test"].includes(args[0]) && !args.includes("--no-compile");
}

function spawnHardhat(args: string[], options: HardhatRunOptions): Promise<void> {
  const child = spawn(process.execPath, [HARDHAT_CLI, ...args], {
    cwd: CONTRACTS_ROOT,
    stdio: ["ignore", options.output === "inherit" ? "inherit" : "ignore", "inherit"],
    env: options.env ?? process.env,
    timeout: options.timeoutMs,
  });
  return new Promise((resolve, reject) => {
    child.once("error", reject);
    child.once("exit", (code, signal) => (code === 0 ? resolve() : reject(new Error(`hardhat ${args.join(" ")} failed (${code ?? signal})`))));
  });
}
