import { type ChildProcess, spawn } from "node:child_process";
import { closeSync, openSync } from "node:fs";
import { join } from "node:path";

import { ROOT } from "../../scripts/lib/embedded-chain";

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** A child process this run started and must stop, whatever happens to the run. */
export interface OwnedProcess {
  name: string;
  pid: number;
  child: ChildProcess;
  logFile: string;
  exited: Promise<Exit>;
  running: () => boolean;
  /** Sends `signal` to its process group and waits for the exit (SIGKILL after `graceMs`). */
  stop: (signal?: NodeJS.Signals, graceMs?: number) => Promise<Exit>;
}

/** `node` arguments that make a Node child stop when this process goes (see exit-with-parent.ts). */
export const NODE_GUARD_ARGS = ["-r", "ts-node/register/transpile-only", "-r", join(__dirname, "../../scripts/lib/exit-with-parent.ts")];

const owned = new Set<OwnedProcess>();

/**
 * Spawns `command` in a process group of its own, stdout and stderr appended to `logFile`, stdin a
 * pipe kept open as the child's lifeline. Every owned process is killed when this process exits,
 * is interrupted or crashes.
 */
export function spawnOwned(name: string, command: string, args: string[], env: Record<string, string | undefined>, logFile: string): OwnedProcess {
  installCleanup();
  const log = openSync(logFile, "a");
  const child = spawn(command, args, { cwd: ROOT, env, detached: true, stdio: ["pipe", log, log] });
  closeSync(log);
  child.stdin?.on("error", () => undefined);
  const exited = new Promise<Exit>((resolve) => {
    child.once("exit", (code, signal) => resolve({ code, signal }));
    // A command that cannot start emits "error" and no "exit".
    child.once("error", () => resolve({ code: -1, signal: null }));
  });
  const ownedProcess: OwnedProcess = {
    name,
    pid: child.pid ?? -1,
    child,
    logFile,
    exited,
    running: () => child.exitCode === null && child.signalCode === null,
    stop: (signal = "SIGTERM", graceMs = 15_000) => stopGroup(ownedProcess, signal, graceMs),
  };
  if (child.pid === undefined) throw new Error(`could not start ${name} (${command})`);
  owned.add(ownedProcess);
  void exited.then(() => {
    owned.delete(ownedProcess);
    child.stdin?.end();
  });
  return ownedProcess;
}

async function stopGroup(target: OwnedProcess, signal: NodeJS.Signals, graceMs: number): Promise<Exit> {
  if (!target.running()) return target.exited;
  signalGroup(target.pid, signal);
  const timer = setTimeout(() => signalGroup(target.pid, "SIGKILL"), graceMs);
  try {
    return await target.exited;
  } finally {
    clearTimeout(timer);
  }
}

function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // Already gone.
  }
}

let cleanupInstalled = false;

function installCleanup(): void {
  if (cleanupInstalled) return;
  cleanupInstalled = true;
  process.once("exit", killAll);
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) {
    process.once(signal, () => {
      killAll();
      process.exit(128 + (signal === "SIGINT" ? 2 : signal === "SIGTERM" ? 15 : 1));
    });
  }
}

function killAll(): void {
  for (const target of owned) signalGroup(target.pid, "SIGKILL");
}
