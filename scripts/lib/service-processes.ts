import { type ChildProcess, spawn } from "node:child_process";
import { join } from "node:path";
import { createInterface } from "node:readline";
import type { Readable, Writable } from "node:stream";

import { ROOT } from "./embedded-chain";

/**
 * The api and the worker of `npm start` as two processes (`src/main.ts` with APP_ROLE api and
 * worker), supervised by the `npm start` process: their output merged into its own, a clear word
 * and a stop of the rest when one of them exits unasked, and a graceful stop of both on Ctrl-C.
 */
export type ProcessRole = "api" | "worker";

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface ServiceProcess {
  role: ProcessRole;
  pid: number;
  child: ChildProcess;
  /** Resolves once the process has exited and its output is all relayed. */
  exited: Promise<Exit>;
  running: () => boolean;
}

/** Stops the process when `npm start` goes, however it goes (see exit-with-parent.ts). */
const LIFELINE = join(__dirname, "exit-with-parent.ts");

/**
 * Starts `src/main.ts` in `role` with `env`. The child has a process group of its own, so that a
 * Ctrl-C in the terminal reaches only `npm start`, which then stops the children in its own order,
 * once each. Its stdin is the lifeline pipe; its stdout and stderr go to this process's, line by
 * line: the service's JSON lines as they are (they carry `role`), any other line (the readable log
 * lines on a terminal, a crash before the logger exists, a stack trace) prefixed with `[api]` or
 * `[worker]`.
 */
export function spawnServiceProcess(role: ProcessRole, env: NodeJS.ProcessEnv): ServiceProcess {
  const child = spawn(process.execPath, ["-r", "ts-node/register/transpile-only", "-r", LIFELINE, "src/main.ts"], {
    cwd: ROOT,
    env: { ...env, APP_ROLE: role },
    detached: true,
    stdio: ["pipe", "pipe", "pipe"],
  });
  if (child.pid === undefined) throw new Error(`could not start the ${role} process`);
  child.stdin?.on("error", () => undefined);
  relayLines(child.stdout, process.stdout, role);
  relayLines(child.stderr, process.stderr, role);
  const exited = new Promise<Exit>((resolve) => {
    // "close": the process has exited and its stdout and stderr are drained.
    child.once("close", (code, signal) => resolve({ code, signal }));
    child.once("error", () => resolve({ code: -1, signal: null }));
  });
  return { role, pid: child.pid, child, exited, running: () => child.exitCode === null && child.signalCode === null };
}

function relayLines(from: Readable, to: Writable, role: ProcessRole): void {
  const lines = createInterface({ input: from, crlfDelay: Infinity });
  lines.on("line", (line) => to.write(`${line.startsWith("{") ? line : `[${role}] ${line}`}\n`));
}

/** How a process ended, in words. */
export function describeExit(exit: Exit): string {
  return exit.signal ? `killed by ${exit.signal}` : `exit code ${exit.code}`;
}

/**
 * The service processes of one `npm start`. A process that exits while nobody asked it to is
 * reported to `onUnexpectedExit` (`npm start` then stops the others: see scripts/start.ts).
 */
export class ServiceSupervisor {
  private readonly processes: ServiceProcess[] = [];
  private stopping = false;

  constructor(private readonly onUnexpectedExit: (process: ServiceProcess, exit: Exit) => void) {}

  /** Starts `role`; nothing once a stop has begun. */
  start(role: ProcessRole, env: NodeJS.ProcessEnv): ServiceProcess | undefined {
    if (this.stopping) return undefined;
    const started = spawnServiceProcess(role, env);
    this.processes.push(started);
    void started.exited.then((exit) => {
      if (!this.stopping) this.onUnexpectedExit(started, exit);
    });
    return started;
  }

  get list(): readonly ServiceProcess[] {
    return this.processes;
  }

  /**
   * Stops every process still running: SIGTERM (the service's graceful shutdown: the API stops
   * taking requests, the worker finishes what it holds), SIGKILL to its process group after
   * `graceMs`. Resolves with the processes that had to be killed.
   */
  async stop(graceMs: number): Promise<ServiceProcess[]> {
    this.stopping = true;
    const killed: ServiceProcess[] = [];
    await Promise.all(
      this.processes.map(async (target) => {
        if (!target.running()) return target.exited;
        signalGroup(target.pid, "SIGTERM");
        const timer = setTimeout(() => {
          killed.push(target);
          signalGroup(target.pid, "SIGKILL");
        }, graceMs);
        try {
          return await target.exited;
        } finally {
          clearTimeout(timer);
        }
      }),
    );
    return killed;
  }

  /** SIGKILL to every process still running (a second Ctrl-C: stop now). */
  kill(): void {
    this.stopping = true;
    for (const target of this.processes) if (target.running()) signalGroup(target.pid, "SIGKILL");
  }
}

function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // Already gone.
  }
}
