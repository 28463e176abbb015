import { Logger } from "@nestjs/common";
import { isAddress } from "ethers";
import { DataSource } from "typeorm";

import { OrganizationsError, OrganizationsService } from "../auth/organizations.service";
import { OrganizationOnboardingService } from "../callbacks/secrets/organization-onboarding.service";
import { WebhookSecretsService } from "../callbacks/secrets/webhook-secrets.service";
import { ChainClient, ChainUnavailableError } from "../chain/chain-client";
import { LedgerReconcileError, LedgerReconciler } from "../chain/ledger-reconcile/ledger-reconciler";
import type { SignerReconcileReport } from "../chain/writer/reconcile/signer-reconciler";
import type { AppConfig } from "../config/app-config";
import { dataSourceOptions } from "../database/data-source-options";
import { ENTITIES } from "../entities";
import { UsageService } from "../usage/usage.service";
import { UsageStore } from "../usage/usage.store";
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
  // Services log through Nest's Logger, which writes to stdout: only errors (to stderr), so that stdout
  // carries the command's output alone (`--json` piped as is); each command prints what it did.
  Logger.overrideLogger(["error"]);
  await prepareDatabase(config);
  const dataSource = await new DataSource(dataSourceOptions(config.database.url, ENTITIES)).initialize();
  const chain = new ChainClient(config);
  try {
    await command.run(commandServices(dataSource, config, chain), input);
  } catch (error) {
    throw error instanceof OrganizationsError || error instanceof ChainUnavailableError || error instanceof LedgerReconcileError
      ? new RefusedError(error.message)
      : error;
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
    signers: { reconcile: (address) => reconcileSigner(dataSource, config, address) },
    ledger: {
      workers: () => chainWriterWorkers(config),
      reconciler: () => new LedgerReconciler(dataSource, chain, config, (address) => reconcileSigner(dataSource, config, address)),
    },
    usage: new UsageService(new UsageStore(dataSource), config),
  };
}

async function reconcileSigner(dataSource: DataSource, config: AppConfig, address: string): Promise<SignerReconcileReport> {
  // A plain boolean: isAddress narrows its argument, which would leave `address` typed never below.
  const valid: boolean = isAddress(address);
  if (!valid) throw new RefusedError(`${address} is not an address`);
  if (config.chain.rpcUrls.length === 0 || !config.chain.registryAddress) throw new RefusedError("no chain configured (CHAIN_RPC_URL and REGISTRY_ADDRESS)");
  // Required only now: the other commands need neither the chain client nor the registry's ABI.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const chain = require("./reconcile-signer") as typeof import("./reconcile-signer");
  return chain.reconcileSigner(dataSource, config, address);
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
