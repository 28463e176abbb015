import { type ChildProcess, spawn } from "node:child_process";
import { closeSync, openSync } from "node:fs";
import { join } from "node:path";

import { ROOT } from "./paths";
import { TYPESCRIPT_RUNNER_ARGS } from "./typescript-runner";

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/**
 * Where a process's stdout and stderr go: nowhere, this process's own, pipes the caller reads
 * (`child.stdout`, `child.stderr`), or appended to a log file.
 */
export type ProcessOutput = "ignore" | "inherit" | "pipe" | { file: string };

export interface OwnedProcessOptions {
  /** How the process is named in messages. */
  name: string;
  command: string;
  args: string[];
  /** Its whole environment (default: this process's). */
  env?: NodeJS.ProcessEnv;
  output?: ProcessOutput;
  /** What its process group gets when this process exits while it still runs (default SIGKILL). */
  signalAtExit?: NodeJS.Signals;
}

/** A child process this process started and must stop, whatever happens to this one. */
export interface OwnedProcess {
  name: string;
  pid: number;
  child: ChildProcess;
  /** The log file its output goes to, if any. */
  logFile: string | undefined;
  /** Resolves once it has exited and its piped output is drained. */
  exited: Promise<Exit>;
  running: () => boolean;
  /** Sends `signal` to its process group and waits for the exit (SIGKILL after `graceMs`). */
  stop: (signal?: NodeJS.Signals, graceMs?: number) => Promise<Exit>;
}

/**
 * `node` arguments that make a Node child stop when this process goes, however it goes (see
 * exit-with-parent.ts: its stdin is the lifeline pipe spawnOwned keeps open).
 */
export const NODE_LIFELINE_ARGS = [...TYPESCRIPT_RUNNER_ARGS, "-r", join(__dirname, "exit-with-parent.ts")];

/**
 * `sh -c` script for a program that cannot watch its parent (Anvil, redis-server): a watcher that
 * SIGTERMs the shell's process when stdin closes, then `exec` of the program, so that the process
 * owned (its pid, the one signalled and measured) is the program itself.
 */
const SHELL_LIFELINE = 'exec 3<&0; { cat <&3 >/dev/null; kill $$ 2>/dev/null; } & exec "$@" </dev/null 3<&-';

/** The command and arguments that run `command` under the shell's lifeline. */
export function underShellLifeline(command: string, args: string[]): { command: string; args: string[] } {
  return { command: "sh", args: ["-c", SHELL_LIFELINE, "sh", command, ...args] };
}

/** Each owned process still running, and what it gets when this process exits. */
const atExits = new Map<OwnedProcess, () => void>();

/** The owned processes that have not exited yet (a test file that leaves one behind, say). */
export function runningOwnedProcesses(): OwnedProcess[] {
  return [...atExits.keys()];
}

/**
 * Spawns a process in a process group of its own (a Ctrl-C in the terminal reaches only this
 * process, which stops its children in its own order), with stdin a pipe kept open as its lifeline.
 * Whatever still runs when this process exits gets its `signalAtExit`.
 */
export function spawnOwned(options: OwnedProcessOptions): OwnedProcess {
  installExitHook();
  const output = options.output ?? "ignore";
  const logFile = typeof output === "object" ? output.file : undefined;
  const log: "ignore" | "inherit" | "pipe" | number = typeof output === "object" ? openSync(output.file, "a") : output;
  const child: ChildProcess = spawn(options.command, options.args, { cwd: ROOT, env: options.env ?? process.env, detached: true, stdio: ["pipe", log, log] });
  if (typeof log === "number") closeSync(log);
  child.stdin?.on("error", () => undefined);
  const exited = new Promise<Exit>((resolve) => {
    // "close": the process has exited and its stdout and stderr are drained.
    child.once("close", (code, signal) => resolve({ code, signal }));
    // A command that cannot start emits "error" and no "exit".
    child.once("error", () => resolve({ code: -1, signal: null }));
  });
  if (child.pid === undefined) throw new Error(`could not start ${options.name} (${options.command})`);
  const ownedProcess: OwnedProcess = {
    name: options.name,
    pid: child.pid,
    child,
    logFile,
    exited,
    running: () => child.exitCode === null && child.signalCode === null,
    stop: (signal = "SIGTERM", graceMs = 15_000) => stopGroup(ownedProcess, signal, graceMs),
  };
  const signalAtExit = options.signalAtExit ?? "SIGKILL";
  const atExit = () => {
    if (ownedProcess.running()) signalGroup(ownedProcess.pid, signalAtExit);
  };
  atExits.set(ownedProcess, atExit);
  void exited.then(() => {
    atExits.delete(ownedProcess);
    // A shell lifeline's watcher ends with the pipe.
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

/** Sends `signal` to the process group led by `pid`, if it still exists. */
export function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // Already gone.
  }
}

/** How a process ended, in words. */
export function describeExit(exit: Exit): string {
  return exit.signal ? `killed by ${exit.signal}` : `exit code ${exit.code}`;
}

let exitHookInstalled = false;

/**
 * Signals are left to the caller (npm start and the chain container stop their children in an order
 * of their own); a run killed outright is covered by the lifelines.
 */
function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once("exit", () => {
    for (const atExit of atExits.values()) atExit();
  });
}
