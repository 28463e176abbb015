import "reflect-metadata";

import type { AddressInfo, Server } from "node:net";

import { type INestApplication, Logger } from "@nestjs/common";

import { createApp } from "./app.setup";
import { OrganizationOnboardingService } from "./callbacks/secrets/organization-onboarding.service";
import { type AppConfig, ConfigError, loadConfig } from "./config/app-config";
import { createDatabaseIfMissing, runMigrations } from "./database/prepare-database";
import { processLogging } from "./logging";

const logger = new Logger("Bootstrap");

async function bootstrap(): Promise<void> {
  const config = loadConfig();
  // JSON lines from the first one: the database is prepared before the application exists.
  Logger.overrideLogger(processLogging(config).nest);
  await prepareDatabase(config);
  const app = await createApp(config);
  if (config.app.role === "worker") {
    await app.listen(config.app.port);
    logger.log(`worker role started: operations endpoints on port ${listeningPort(app)} (health, metrics, queue dashboard), no API`);
    return;
  }
  await seedPlayground(app.get(OrganizationOnboardingService), config);
  await app.listen(config.app.port);
  const base = `${config.http.tlsCertFile ? "https" : "http"}://127.0.0.1:${listeningPort(app)}`;
  logger.log(`${config.app.role} role listening: API ${base}/api/v1, Swagger ${base}/docs, health ${base}/health`);
  if (config.chain.embedded) logger.log(`embedded chain: JSON-RPC ${config.chain.rpcUrl}, TicketRegistry ${config.chain.registryAddress}`);
  else if (!config.chain.rpcUrl) logger.warn("no chain configured (CHAIN_RPC_URL): accepted actions wait in the ledger");
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

bootstrap().catch((error: unknown) => {
  if (error instanceof ConfigError) {
    console.error(error.message);
  } else {
    logger.error(error instanceof Error ? error : String(error));
  }
  process.exit(1);
});
