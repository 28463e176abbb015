import "reflect-metadata";

import { Logger } from "@nestjs/common";
import { NestFactory } from "@nestjs/core";

import { createApp } from "./app.setup";
import { AppModule } from "./app.module";
import { OrganizationsService } from "./auth/organizations.service";
import { type AppConfig, ConfigError, loadConfig } from "./config/app-config";
import { createDatabaseIfMissing, runMigrations } from "./database/prepare-database";

const logger = new Logger("Bootstrap");

async function bootstrap(): Promise<void> {
  const config = loadConfig();
  await prepareDatabase(config);
  if (config.app.role === "worker") {
    const worker = await NestFactory.createApplicationContext(AppModule.forConfig(config));
    worker.enableShutdownHooks();
    logger.log("worker role started: no HTTP endpoints");
    return;
  }
  const app = await createApp(config);
  await seedPlayground(app.get(OrganizationsService), config);
  await app.listen(config.app.port);
  const base = `http://127.0.0.1:${config.app.port}`;
  logger.log(`${config.app.role} role listening: API ${base}/api/v1, Swagger ${base}/docs, health ${base}/health`);
  if (config.chain.embedded) logger.log(`embedded chain: JSON-RPC ${config.chain.rpcUrl}, TicketRegistry ${config.chain.registryAddress}`);
  else if (!config.chain.rpcUrl) logger.warn("no chain configured (CHAIN_RPC_URL): accepted actions wait in the ledger");
}

async function prepareDatabase(config: AppConfig): Promise<void> {
  if (config.database.createIfMissing && (await createDatabaseIfMissing(config.database.url))) {
    logger.log("created the database named in DATABASE_URL");
  }
  if (!config.database.migrateAtBoot) return;
  const applied = await runMigrations(config.database.url);
  if (applied.length > 0) logger.log(`applied migrations: ${applied.join(", ")}`);
}

async function seedPlayground(organizations: OrganizationsService, config: AppConfig): Promise<void> {
  const { ticketeerId, apiKey, organizationName, webhookSecret } = config.dev;
  if (!ticketeerId || !apiKey) return;
  await organizations.seedPlayground(ticketeerId, organizationName, apiKey, webhookSecret);
  logger.log(`playground organization ${ticketeerId} is ready; use DEV_API_KEY as X-Api-Key`);
}

bootstrap().catch((error: unknown) => {
  if (error instanceof ConfigError) {
    console.error(error.message);
  } else {
    logger.error(error instanceof Error ? (error.stack ?? error.message) : String(error));
  }
  process.exit(1);
});
