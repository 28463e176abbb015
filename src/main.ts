import "reflect-metadata";

import { type AddressInfo, isIPv6, type Server } from "node:net";

import { type INestApplication, Logger } from "@nestjs/common";

import { OperationsServer } from "./admin/operations-server";
import { createApp } from "./app.setup";
import { OrganizationOnboardingService } from "./callbacks/secrets/organization-onboarding.service";
import { type AppConfig, ConfigError, loadConfig } from "./config/app-config";
import { createDatabaseIfMissing, runMigrations } from "./database/prepare-database";
import { unreachableDependencies } from "./health/unreachable-dependencies";
import { processLogging } from "./logging";

const logger = new Logger("Bootstrap");
const STOP_SIGNALS: NodeJS.Signals[] = ["SIGTERM", "SIGINT", "SIGHUP"];

/** The application once built; the stop signal once one has come. */
let service: INestApplication | undefined;
let stopSignal: NodeJS.Signals | undefined;

async function bootstrap(): Promise<void> {
  const config = loadConfig();
  // JSON lines from the first one: the database is prepared before the application exists.
  Logger.overrideLogger(processLogging(config).nest);
  await prepareDatabase(config);
  service = await createApp(config, { shutdownHooks: false });
  // Stopped while starting (the sibling process of `npm start` failed, say): serve nothing.
  if (stopSignal) return;
  await serve(service, config);
}

async function serve(app: INestApplication, config: AppConfig): Promise<void> {
  const { host, port, role } = config.app;
  if (role === "worker") {
    await app.listen(port, host);
    logger.log(`worker role started: operations endpoints on ${origin(config, listeningPort(app))} (health, metrics, queue dashboard), no API`);
    return;
  }
  await seedPlayground(app.get(OrganizationOnboardingService), config);
  await app.listen(port, host);
  const operations = await app.get(OperationsServer).listen(app);
  const base = origin(config, listeningPort(app));
  logger.log(
    `${role} role listening: API ${base}/api/v1, Swagger ${base}/docs, health ${base}/health; ` +
      `operations ${origin(config, operations?.port ?? 0)} (metrics, queue dashboard, health)`,
  );
  if (config.chain.embedded) logger.log(`embedded chain: JSON-RPC ${config.chain.rpcUrl}, TicketRegistry ${config.chain.registryAddress}`);
  else if (!config.chain.rpcUrl) logger.warn("no chain configured (CHAIN_RPC_URL): accepted actions wait in the ledger");
}

/** Where a server of this process listens, as HOST says: the start line names what was bound. */
function origin(config: AppConfig, port: number): string {
  const host = isIPv6(config.app.host) ? `[${config.app.host}]` : config.app.host;
  return `${config.http.tlsCertFile ? "https" : "http"}://${host}:${port}`;
}

function listeningPort(app: INestApplication): number {
  return ((app.getHttpServer() as Server).address() as AddressInfo).port;
}

async function prepareDatabase(config: AppConfig): Promise<void> {
  if (config.database.createIfMissing && (await createDatabaseIfMissing(config.database.url))) {
    logger.log("created the database named in DATABASE_URL");
  }
  if (!config.database.migrateAtBoot) return;
  const applied = await runMigrations(config.database.url);
  if (applied.length > 0) logger.log(`applied migrations: ${applied.join(", ")}`);
}

async function seedPlayground(onboarding: OrganizationOnboardingService, config: AppConfig): Promise<void> {
  const { ticketeerId, apiKey, organizationName, webhookSecret } = config.dev;
  if (!ticketeerId || !apiKey) return;
  await onboarding.seedPlayground(ticketeerId, organizationName, apiKey, webhookSecret);
  logger.log(`playground organization ${ticketeerId} is ready; use DEV_API_KEY as X-Api-Key`);
}

/**
 * A stop signal, whenever it comes: a start under way is finished first (a stop in the middle of it
 * left Bull's connections closed under the processors it was starting: an unhandled "Connection is
 * closed"), then the application closes gracefully. The last line and the exit code say how it
 * stopped: 0, or 1 when PostgreSQL or Redis did not answer at the stop (their work waits for the next start).
 */
async function stop(signal: NodeJS.Signals, starting: Promise<void>): Promise<void> {
  if (stopSignal) return;
  stopSignal = signal;
  await starting.catch(() => undefined);
  const app = service;
  if (!app) return; // the start failed and exits on its own
  let code = 1;
  try {
    const unreachable = await unreachableDependencies(app);
    // The signal goes to the shutdown hooks (readiness drained for SHUTDOWN_GRACE_MS, the log lines), as Nest's own hooks pass it.
    await (app as unknown as { close: (signal: string) => Promise<void> }).close(signal);
    if (unreachable.length === 0) {
      code = 0;
      logger.log(`${signal}: stopped; unfinished work waits in the ledger`);
    } else {
      logger.warn(`${signal}: stopped with ${unreachable.join(" and ")} unreachable (exit code 1); unfinished work waits in the ledger`);
    }
  } catch (error) {
    logger.error(`${signal}: the stop failed (exit code 1): ${error instanceof Error ? error.message : String(error)}`);
  }
  exitAfter(signal, code);
}

/**
 * Exits with `code`; but when the process that loaded this file listens to the signal too
 * (`npm start -- --single-process`, which stops its chain after the service), the signal is raised
 * again for it, as Nest's shutdown hooks do, and it decides when the process ends.
 */
function exitAfter(signal: NodeJS.Signals, code: number): void {
  process.exitCode = code;
  for (const each of STOP_SIGNALS) process.removeListener(each, onStopSignal);
  if (process.listenerCount(signal) > 0) process.kill(process.pid, signal);
  else process.exit(code);
}

/** One line that says why the start failed. */
function startFailure(error: unknown): string {
  const { code, port } = (error ?? {}) as { code?: unknown; port?: unknown };
  if (code === "EADDRINUSE") return `could not start: port ${String(port)} is in use by another process (EADDRINUSE); stop it or set PORT to a free port`;
  if (code === "EACCES") return `could not start: no permission to listen on port ${String(port)} (EACCES); set PORT to one above 1023`;
  return `could not start: ${error instanceof Error ? error.message : String(error)}`;
}

const starting = bootstrap();
function onStopSignal(signal: NodeJS.Signals): void {
  void stop(signal, starting);
}
for (const signal of STOP_SIGNALS) process.on(signal, onStopSignal);
starting.catch((error: unknown) => {
  if (error instanceof ConfigError) {
    console.error(error.message);
  } else {
    logger.error(startFailure(error));
  }
  process.exit(1);
});
