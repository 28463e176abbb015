import { createInterface } from "node:readline";
import type { Readable, Writable } from "node:stream";

import { type Exit, type OwnedProcess, signalGroup } from "../stack/owned-process";
import { spawnService } from "../stack/service-process";

/**
 * The api and the worker of `npm start` as two processes (`src/main.ts` with APP_ROLE api and
 * worker), supervised by the `npm start` process: their output merged into its own, a clear word
 * and a stop of the rest when one of them exits unasked, and a graceful stop of both on Ctrl-C.
 */
export type ProcessRole = "api" | "worker";

export interface ServiceProcess extends OwnedProcess {
  role: ProcessRole;
}

/**
 * Starts `src/main.ts` in `role` with `env` (see spawnService: a process group of its own, so that
 * a Ctrl-C in the terminal reaches only `npm start`, which then stops the children in its own order,
 * once each; a lifeline that stops it when `npm start` goes). Its stdout and stderr go to this
 * process's, line by line: the service's JSON lines as they are (they carry `role`), any other line
 * (the readable log lines on a terminal, a crash before the logger exists, a stack trace) prefixed
 * with `[api]` or `[worker]`.
 */
export function spawnServiceProcess(role: ProcessRole, env: NodeJS.ProcessEnv): ServiceProcess {
  // Left behind by an `npm start` that exits, it shuts down gracefully.
  const service = spawnService({ role, env, output: "pipe", signalAtExit: "SIGTERM" });
  if (service.child.stdout) relayLines(service.child.stdout, process.stdout, role);
  if (service.child.stderr) relayLines(service.child.stderr, process.stderr, role);
  return Object.assign(service, { role });
}

function relayLines(from: Readable, to: Writable, role: ProcessRole): void {
  const lines = createInterface({ input: from, crlfDelay: Infinity });
  lines.on("line", (line) => to.write(`${line.startsWith("{") ? line : `[${role}] ${line}`}\n`));
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
