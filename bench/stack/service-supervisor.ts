import { freePort } from "../../test/support/test-chain";
import type { Exit, OwnedProcess } from "./owned-process";
import { spawnService, waitForHealth } from "./service-process";

export type ServiceName = "api" | "worker";

export interface UnexpectedExit {
  name: ServiceName;
  at: number;
  exit: Exit;
  logFile: string;
}

const RESTART_DELAY_MS = 1_000;
/** A service that exits on its own this often is crash-looping: it is not started again. */
const MAX_RESTARTS = 5;

/**
 * The api and the worker as separate processes (APP_ROLE=api, APP_ROLE=worker), restarted like a
 * process manager would when one exits on its own — each such exit is recorded, because in a soak
 * or fault run it is a finding. Exits this run causes (killWorker, stopAll) are not.
 */
export class ServiceSupervisor {
  readonly unexpectedExits: UnexpectedExit[] = [];
  private readonly running = new Map<ServiceName, OwnedProcess>();
  private readonly intended = new Set<OwnedProcess>();
  private readonly starts = new Map<ServiceName, number>();
  private stopping = false;

  constructor(
    private readonly env: Record<string, string>,
    private readonly apiPort: number,
    private readonly logDir: string,
  ) {}

  get baseUrl(): string {
    return `http://127.0.0.1:${this.apiPort}`;
  }

  /** The api first (it migrates the database and seeds the organization), then the worker; both healthy. */
  async start(): Promise<void> {
    await waitForHealth(this.baseUrl, this.launch("api"));
    const port = await freePort();
    await waitForHealth(`http://127.0.0.1:${port}`, this.launch("worker", port));
  }

  /** A service kept exiting on its own, and is down for good. */
  get crashLooping(): boolean {
    return (["api", "worker"] as const).some((name) => this.unexpectedExits.filter((exit) => exit.name === name).length > MAX_RESTARTS);
  }

  current(name: ServiceName): OwnedProcess | undefined {
    return this.running.get(name);
  }

  /** SIGKILL to the worker: no shutdown hook runs, as when a machine dies. */
  async killWorker(): Promise<void> {
    const worker = this.running.get("worker");
    if (!worker) return;
    this.intended.add(worker);
    await worker.stop("SIGKILL");
  }

  startWorker(): OwnedProcess {
    return this.launch("worker");
  }

  async stopAll(): Promise<void> {
    this.stopping = true;
    await Promise.all([...this.running.values()].map((service) => service.stop("SIGTERM")));
  }

  /** A restarted worker takes any free port for its operations endpoints (health, metrics): nothing waits for it. */
  private launch(name: ServiceName, port = name === "api" ? this.apiPort : 0): OwnedProcess {
    const count = (this.starts.get(name) ?? 0) + 1;
    this.starts.set(name, count);
    const env = { ...this.env, PORT: String(port) };
    const service = spawnService(name, env, this.logDir, count === 1 ? name : `${name}-${count}`);
    this.running.set(name, service);
    void service.exited.then((exit) => this.exitedOnItsOwn(name, service, exit));
    return service;
  }

  private exitedOnItsOwn(name: ServiceName, service: OwnedProcess, exit: Exit): void {
    if (this.running.get(name) === service) this.running.delete(name);
    if (this.stopping || this.intended.has(service)) return;
    this.unexpectedExits.push({ name, at: Date.now(), exit, logFile: service.logFile });
    if (this.crashLooping) return;
    setTimeout(() => {
      if (!this.stopping) this.launch(name);
    }, RESTART_DELAY_MS);
  }
}
