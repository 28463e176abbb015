import { DataSource } from "typeorm";

import { OrganizationsError, OrganizationsService } from "../auth/organizations.service";
import { OrganizationOnboardingService } from "../callbacks/secrets/organization-onboarding.service";
import { WebhookSecretsService } from "../callbacks/secrets/webhook-secrets.service";
import { ChainClient, ChainUnavailableError } from "../chain/chain-client";
import { LedgerReconciler } from "../chain/ledger-reconcile/ledger-reconciler";
import type { AppConfig } from "../config/app-config";
import { dataSourceOptions } from "../database/data-source-options";
import { ENTITIES } from "../entities";
import { createDatabaseIfMissing, runMigrations } from "../database/prepare-database";
import { chainWriterWorkers } from "./chain-writer-workers";
import { RefusedError } from "./cli-errors";
import type { Command, CommandInput, CommandServices } from "./command";
import { note } from "./output";

/**
 * Runs a command on the service's own OrganizationsService and OrganizationOnboardingService (and,
 * for the ledger's commands, its ChainClient) over a plain DataSource: the CLI needs no Nest container,
 * and the services stay the one place that knows how keys and webhook secrets are made.
 */
export async function runCommand(config: AppConfig, command: Command, input: CommandInput): Promise<void> {
  await prepareDatabase(config);
  const dataSource = await new DataSource(dataSourceOptions(config.database.url, ENTITIES)).initialize();
  const chain = new ChainClient(config);
  try {
    await command.run(commandServices(dataSource, config, chain), input);
  } catch (error) {
    throw error instanceof OrganizationsError || error instanceof ChainUnavailableError ? new RefusedError(error.message) : error;
  } finally {
    chain.onApplicationShutdown();
    await dataSource.destroy();
  }
}

/** Composes the services as the application's modules do. */
function commandServices(dataSource: DataSource, config: AppConfig, chain: ChainClient): CommandServices {
  const organizations = new OrganizationsService(dataSource);
  return {
    organizations,
    onboarding: new OrganizationOnboardingService(dataSource, organizations, new WebhookSecretsService(dataSource, config)),
    ledger: { workers: () => chainWriterWorkers(config), reconciler: () => new LedgerReconciler(dataSource, chain, config) },
  };
}

/**
 * Prepares the database exactly as the service does at boot, so that onboarding can come before the
 * first deployment, and an operator who turned migrations off for the service is obeyed here too.
 */
async function prepareDatabase(config: AppConfig): Promise<void> {
  const { url, createIfMissing, migrateAtBoot } = config.database;
  if (createIfMissing && (await createDatabaseIfMissing(url))) note("created the database named in DATABASE_URL");
  if (!migrateAtBoot) return;
  const applied = await runMigrations(url);
  if (applied.length > 0) note(`applied migrations: ${applied.join(", ")}`);
}
