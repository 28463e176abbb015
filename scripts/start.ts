/**
 * `npm start`: the service against the chain in CHAIN_RPC_URL, or, when none is set, against the
 * playground: a local Anvil chain (JSON-RPC on 127.0.0.1:8545, chain id 31337) whose state is kept
 * in the data folder (`.data/playground`, or PLAYGROUND_DATA_DIR), with the registry deployed by
 * scripts/deploy.ts on its first start and the service's signer made an operator.
 *
 * The ledger goes with the chain: unless DATABASE_URL is given, the service uses the database
 * `ticket_registry_dev`, kept while the chain is kept and emptied when the chain is new (first start,
 * state file removed, `--fresh`). `npm run start:fresh` (`npm start -- --fresh`) starts both anew.
 *
 * The service runs as two processes, as it is deployed: the api (APP_ROLE=api, on PORT) and the
 * worker (APP_ROLE=worker: chain writer, receipt watcher, callback delivery; its operations
 * endpoints on WORKER_PORT, PORT + 1 by default), so that draining a backlog to the chain does not
 * slow the API down. Their output is merged into this one's. If one of them exits unasked, this
 * says so, stops the other and the chain, and exits with 1 (no restart: a crash loop would hide the
 * failure). `--single-process` (or APP_ROLE set in the environment) runs one process in this one,
 * as before, for debugging. Ctrl-C stops the service first, then Anvil, which writes its state
 * before it exits.
 */
import { Wallet } from "ethers";

import {
  DEV_DATABASE_URL,
  emptyPlaygroundDatabase,
  isPlaygroundDatabase,
  PLAYGROUND_CHAIN_ID,
  playgroundDataDir,
  playgroundSignerKey,
  startPlaygroundChain,
} from "./lib/playground";
import type { AppConfig, LogFormatSetting } from "../src/config/app-config";
import { logFormatOf } from "../src/logging/log-format";
import { ledgerKey } from "./lib/playground-registry";
import { type ServiceProcess, ServiceSupervisor } from "./lib/service-processes";
import { runHardhat } from "./stack/hardhat";
import { describeExit, type Exit } from "./stack/owned-process";

const EMBEDDED_PORT = Number(process.env.EMBEDDED_CHAIN_PORT ?? 8545);
const SIGNALS: NodeJS.Signals[] = ["SIGINT", "SIGTERM", "SIGHUP"];
const REPEAT_WINDOW_MS = 2_000;
/** Time the api and the worker get for their graceful shutdown (beyond SHUTDOWN_GRACE_MS) before they are killed. */
const SERVICE_STOP_GRACE_MS = 30_000;
const USAGE = "usage: npm start [-- --fresh] [-- --single-process]";

interface StartOptions {
  fresh: boolean;
  singleProcess: boolean;
}

function parseOptions(args: string[]): StartOptions {
  const unknown = args.filter((arg) => arg !== "--fresh" && arg !== "--single-process");
  if (unknown.length > 0) throw new Error(`unknown option ${unknown.join(" ")}\n${USAGE}`);
  return { fresh: args.includes("--fresh"), singleProcess: args.includes("--single-process") || Boolean(process.env.APP_ROLE) };
}

async function main(): Promise<void> {
  const options = parseOptions(process.argv.slice(2));
  if (options.fresh && process.env.CHAIN_RPC_URL)
    throw new Error("--fresh starts the playground chain anew; it has nothing to do with the chain in CHAIN_RPC_URL");
  if (options.singleProcess) return startSingleProcess(options);
  split.listen();
  // The service takes the registry's ABI from the compiled artifacts.
  await runHardhat(["compile", "--quiet"]);
  if (!process.env.CHAIN_RPC_URL && !split.stopping) await startPlayground(options.fresh, (stopChain) => split.chainStarted(stopChain));
  if (split.stopping) return;
  const config = await prepareDatabase();
  split.startServices(serviceLogEnv(config.app.logFormat));
}

/** The service in this process (APP_ROLE, `all` unless set), as `npm start` ran before the split. */
async function startSingleProcess(options: StartOptions): Promise<void> {
  await runHardhat(["compile", "--quiet"]);
  if (!process.env.CHAIN_RPC_URL) await startPlayground(options.fresh, stopWithService);
  // Loaded only now: it needs the compiled types and the environment set above, and starts the
  // service as it loads. A require, because a dynamic import of a .ts file bypasses the TypeScript runner's require hook.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  require("../src/main");
}

/**
 * The database both processes use, created here when it is missing (and DATABASE_CREATE_IF_MISSING
 * allows it) so that they do not race to create it; they migrate it at boot under the advisory
 * lock. The service's configuration is read once here too: a mistake in it is reported once, not
 * by each process.
 */
async function prepareDatabase(): Promise<AppConfig> {
  // Loaded only now, as src/main is in one process: after the environment is complete.
  /* eslint-disable @typescript-eslint/no-require-imports */
  const { loadConfig } = require("../src/config/app-config") as typeof import("../src/config/app-config");
  const { createDatabaseIfMissing } = require("../src/database/prepare-database") as typeof import("../src/database/prepare-database");
  /* eslint-enable @typescript-eslint/no-require-imports */
  const config = loadConfig();
  if (config.database.createIfMissing && (await createDatabaseIfMissing(config.database.url)))
    console.log("[start] created the database named in DATABASE_URL");
  return config;
}

/**
 * The api's and the worker's stdout is a pipe to this process, so they log in the format this
 * process's stdout calls for (LOG_FORMAT `auto`: readable lines on a terminal, JSON otherwise). On a
 * terminal they are asked for colours too, which they cannot see for themselves (NO_COLOR still wins).
 */
function serviceLogEnv(setting: LogFormatSetting): NodeJS.ProcessEnv {
  const format = logFormatOf(setting, Boolean(process.stdout.isTTY));
  return format === "pretty" && process.stdout.isTTY ? { LOG_FORMAT: format, FORCE_COLOR: "1" } : { LOG_FORMAT: format };
}

/**
 * The api and the worker as processes of their own, Anvil, and the order they stop in: on a
 * signal (Ctrl-C, SIGTERM, SIGHUP) or when one process exits unasked, both processes are stopped
 * gracefully, then Anvil (which writes its state), then this process exits: 0 after a signal, 1
 * after an unexpected exit. A Ctrl-C under `npm start` arrives twice (from the terminal and
 * forwarded by npm): a repeat within REPEAT_WINDOW_MS is that one; a later one kills the processes
 * at once (Anvil is still stopped gracefully).
 */
class SplitStart {
  stopping = false;
  private firstSignalAt: number | undefined;
  private chain: { stop: () => Promise<void> } | undefined;
  private readonly services = new ServiceSupervisor((process, exit) => this.unexpectedExit(process, exit));

  listen(): void {
    for (const signal of SIGNALS) process.on(signal, (received) => this.onSignal(received));
  }

  chainStarted(stop: () => Promise<void>): void {
    this.chain = { stop };
  }

  startServices(logEnv: NodeJS.ProcessEnv): void {
    const apiPort = Number(process.env.PORT ?? 3000);
    const workerPort = process.env.WORKER_PORT ? Number(process.env.WORKER_PORT) : apiPort === 0 ? 0 : apiPort + 1;
    // The api's operations endpoints (metrics, queue dashboard) on a port of their own, the one after the worker's.
    const opsPort = process.env.OPS_PORT ? Number(process.env.OPS_PORT) : workerPort === 0 ? 0 : workerPort + 1;
    const api = this.services.start("api", { ...process.env, ...logEnv, PORT: String(apiPort), OPS_PORT: String(opsPort) });
    const worker = this.services.start("worker", { ...process.env, ...logEnv, PORT: String(workerPort) });
    if (!api || !worker) return;
    console.log(
      `[start] api (pid ${api.pid}, port ${apiPort}, operations endpoints on port ${opsPort}) and worker (pid ${worker.pid}, operations endpoints on port ${workerPort}) as separate processes; ` +
        `Ctrl-C stops both (npm start -- --single-process runs one process)`,
    );
  }

  private onSignal(signal: NodeJS.Signals): void {
    if (!this.stopping) {
      this.firstSignalAt = Date.now();
      void this.shutdown(0, `[start] ${signal}: stopping the api and the worker${this.chain ? ", then the chain" : ""}`);
    } else if (this.firstSignalAt !== undefined && Date.now() - this.firstSignalAt >= REPEAT_WINDOW_MS) {
      this.firstSignalAt = undefined; // once
      console.error(`[start] ${signal} again: killing the api and the worker now`);
      this.services.kill();
    }
  }

  private unexpectedExit(service: ServiceProcess, exit: Exit): void {
    const others = this.services.list.filter((other) => other !== service && other.running()).map((other) => `the ${other.role}`);
    const rest = [...others, ...(this.chain ? ["the chain"] : [])];
    void this.shutdown(
      1,
      `[start] the ${service.role} process (pid ${service.pid}) exited unexpectedly (${describeExit(exit)})` +
        `${rest.length > 0 ? `: stopping ${rest.join(" and ")}` : ""}. Its output is above; npm start -- --single-process runs the service in one process to debug it.`,
    );
  }

  private async shutdown(code: number, why: string): Promise<void> {
    if (this.stopping) return;
    this.stopping = true;
    if (code === 0) console.log(why);
    else console.error(why);
    const graceMs = SERVICE_STOP_GRACE_MS + Number(process.env.SHUTDOWN_GRACE_MS ?? 5_000);
    const killed = await this.services.stop(graceMs);
    for (const service of killed) console.error(`[start] the ${service.role} process did not stop within ${graceMs / 1000} s and was killed`);
    await this.chain?.stop();
    process.exit(killed.length > 0 ? 1 : code);
  }
}

const split = new SplitStart();

async function startPlayground(fresh: boolean, onStart: (stopChain: () => Promise<void>) => void): Promise<void> {
  const dataDir = playgroundDataDir();
  // A wallet on this machine reads the playground's tokens from the api's own address.
  const publicBaseUrl = process.env.PUBLIC_BASE_URL || `http://localhost:${process.env.PORT ?? 3000}`;
  const databaseUrl = process.env.DATABASE_URL || DEV_DATABASE_URL;
  const signerKey = playgroundSignerKey(databaseUrl);
  const signer = new Wallet(signerKey);
  const chain = await startPlaygroundChain({
    dataDir,
    port: EMBEDDED_PORT,
    operator: signer.address,
    fresh,
    onStart: (_node, stop) => onStart(stop),
    publicBaseUrl,
    databaseUrl,
  });
  Object.assign(process.env, {
    CHAIN_RPC_URL: chain.rpcUrl,
    REGISTRY_ADDRESS: chain.registryAddress,
    SIGNER_PRIVATE_KEYS: signerKey,
    CHAIN_EMBEDDED: "true",
    PUBLIC_BASE_URL: publicBaseUrl,
  });
  process.env.DATABASE_URL = databaseUrl;
  let ledger: string;
  // A registry replaced on a kept chain starts its tokens anew: the ledger of the old one goes with it.
  if (chain.kept) {
    ledger = "kept";
  } else if (isPlaygroundDatabase(databaseUrl)) {
    await emptyPlaygroundDatabase(databaseUrl);
    ledger = `emptied (${chain.replaced ?? "the chain is new"})`;
  } else {
    ledger = `NOT emptied though ${chain.replaced ?? "the chain is new"} (DATABASE_URL names a database other than the playground's)`;
  }
  const registryNote = chain.kept
    ? chain.repointed
      ? ` (its token URIs now at ${publicBaseUrl})`
      : ""
    : chain.replaced
      ? ` (deployed now: ${chain.replaced})`
      : " (deployed now)";
  // A ledger is bound to one registry: the chain's other ledgers keep theirs.
  const others = chain.otherLedgers.map((other) => `\n  the ledger ${other.ledger} keeps its TicketRegistry ${other.address}`).join("");
  console.log(
    `Playground chain (Anvil): JSON-RPC ${chain.rpcUrl} (chain id ${PLAYGROUND_CHAIN_ID}), ${chain.stateKept ? "state kept" : "new state"} in ${chain.stateFile}\n` +
      `  TicketRegistry ${chain.registryAddress}${registryNote}, signer ${signer.address}; ledger ${ledgerKey(databaseUrl)} ${ledger}${others}\n` +
      `  token metadata: ${publicBaseUrl}/tokens/{tokenId} (the registry's tokenURI), collection: ${publicBaseUrl}/tokens/collection\n` +
      `  start afresh: npm run start:fresh`,
  );
}

/**
 * With --single-process, Anvil stops after the service: on a signal the service's shutdown hooks run first and raise the
 * signal again when they are done (before the service has started, this is the only listener);
 * then Anvil is stopped gracefully, writing its state, and the process exits. A Ctrl-C under
 * `npm start` arrives twice (from the terminal and forwarded by npm): a repeat within
 * REPEAT_WINDOW_MS is that one; a later one stops Anvil without waiting for the service. Any other
 * exit still sends Anvil SIGTERM (see startPlaygroundChain), so that it writes its state on its own.
 */
function stopWithService(stopChain: () => Promise<void>): void {
  let firstSignalAt: number | undefined;
  const onSignal = (signal: NodeJS.Signals) => {
    const serviceListens = process.listenerCount(signal) > 1;
    if (serviceListens && (firstSignalAt === undefined || Date.now() - firstSignalAt < REPEAT_WINDOW_MS)) {
      firstSignalAt ??= Date.now(); // the service shuts down and raises the signal again
      return;
    }
    for (const other of SIGNALS) process.removeListener(other, onSignal);
    // Further signals wait for Anvil's state rather than kill the process.
    for (const other of SIGNALS) process.on(other, () => undefined);
    void stopChain().finally(() => process.exit(0));
  };
  for (const signal of SIGNALS) process.on(signal, onSignal);
}

main().catch((error: unknown) => {
  // A start cut short by Ctrl-C (Anvil stopped under the deployment) ends as the stop decides.
  if (split.stopping) return;
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
