import { freePort } from "../../scripts/stack/ports";
import type { Exit, OwnedProcess } from "../../scripts/stack/owned-process";
import { waitForHealth } from "../../scripts/stack/service-process";
import { spawnBenchService } from "./bench-service";

/** "api" (and "api-2" to "api-K" beside it), or a worker's slot: "worker-1" to "worker-M". */
export type ServiceName = string;

export interface UnexpectedExit {
  name: ServiceName;
  at: number;
  exit: Exit;
  logFile: string | undefined;
}

const RESTART_DELAY_MS = 1_000;
/** A service that exits on its own this often is crash-looping: it is not started again. */
const MAX_RESTARTS = 5;

/**
 * The api (APP_ROLE=api; `apis` of them, each on a port of its own, on the same database) and `workers` worker processes (APP_ROLE=worker, slots worker-1 to
 * worker-M), restarted like a process manager would when one exits on its own — each such exit is
 * recorded, because in a soak or fault run it is a finding. Exits this run causes (killWorker,
 * stopAll) are not. Each process connects to PostgreSQL under its own name (PGAPPNAME: the slot, and
 * `.restart-K` for its K-th restart), so the database can tell which one did what.
 */
export class ServiceSupervisor {
  readonly unexpectedExits: UnexpectedExit[] = [];
  readonly workerNames: ServiceName[];
  /** "api", then "api-2" to "api-K". */
  readonly apiNames: ServiceName[];
  private readonly apiPorts = new Map<ServiceName, number>();
  private readonly running = new Map<ServiceName, OwnedProcess>();
  private readonly intended = new Set<OwnedProcess>();
  private readonly starts = new Map<ServiceName, number>();
  private stopping = false;

  constructor(
    private readonly env: Record<string, string>,
    private readonly apiPort: number,
    private readonly logDir: string,
    workers = 1,
    apis = 1,
  ) {
    this.workerNames = Array.from({ length: workers }, (_, index) => `worker-${index + 1}`);
    this.apiNames = Array.from({ length: apis }, (_, index) => (index === 0 ? "api" : `api-${index + 1}`));
    this.apiPorts.set("api", apiPort);
  }

  /** The services' environment: what the ops CLI needs to act on the same database, Redis and chain. */
  get environment(): Readonly<Record<string, string>> {
    return this.env;
  }

  /** Stops the api and every worker (SIGTERM) on purpose, as an operator would before a restore; `start` brings them back. */
  async stopServices(): Promise<void> {
    const services = [...this.running.values()];
    for (const service of services) this.intended.add(service);
    await Promise.all(services.map((service) => service.stop("SIGTERM")));
  }

  get baseUrl(): string {
    return `http://127.0.0.1:${this.apiPort}`;
  }

  /** Every api process's address, the first api's first. */
  get baseUrls(): string[] {
    return this.apiNames.map((name) => `http://127.0.0.1:${this.apiPorts.get(name)}`);
  }

  /**
   * The api first (it migrates the database and seeds the organization), then the other apis, then
   * `beforeWorkers`, then the workers one after the other; each healthy.
   */
  async start(beforeWorkers: () => Promise<void> = async () => undefined): Promise<void> {
    await waitForHealth(this.baseUrl, this.launch("api"));
    for (const name of this.apiNames.slice(1)) {
      if (!this.apiPorts.has(name)) this.apiPorts.set(name, await freePort());
      const port = this.apiPorts.get(name) as number;
      await waitForHealth(`http://127.0.0.1:${port}`, this.launch(name, port));
    }
    await beforeWorkers();
    for (const name of this.workerNames) {
      const port = await freePort();
      await waitForHealth(`http://127.0.0.1:${port}`, this.launch(name, port));
    }
  }

  /** A service kept exiting on its own, and is down for good. */
  get crashLooping(): boolean {
    return [...this.apiNames, ...this.workerNames].some((name) => this.unexpectedExits.filter((exit) => exit.name === name).length > MAX_RESTARTS);
  }

  current(name: ServiceName): OwnedProcess | undefined {
    return this.running.get(name);
  }

  /** The processes running now, the apis first: name (with its restart) and pid. */
  processes(): OwnedProcess[] {
    return [...this.apiNames, ...this.workerNames].flatMap((name) => this.running.get(name) ?? []);
  }

  /** SIGKILL to a worker (worker-1 unless named): no shutdown hook runs, as when a machine dies. */
  async killWorker(name: ServiceName = this.workerNames[0]): Promise<void> {
    const worker = this.running.get(name);
    if (!worker) return;
    this.intended.add(worker);
    await worker.stop("SIGKILL");
  }

  startWorker(name: ServiceName = this.workerNames[0]): OwnedProcess {
    return this.launch(name);
  }

  async stopAll(): Promise<void> {
    this.stopping = true;
    await Promise.all([...this.running.values()].map((service) => service.stop("SIGTERM")));
  }

  /** A restarted worker takes any free port for its operations endpoints (health, metrics): nothing waits for it. */
  private launch(name: ServiceName, port = this.apiPorts.get(name) ?? 0): OwnedProcess {
    const count = (this.starts.get(name) ?? 0) + 1;
    this.starts.set(name, count);
    const processName = count === 1 ? name : `${name}.restart-${count - 1}`;
    const env = { ...this.env, PORT: String(port), PGAPPNAME: processName };
    const service = spawnBenchService(this.apiNames.includes(name) ? "api" : "worker", env, this.logDir, processName);
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
