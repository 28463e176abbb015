import type { ContractTransactionResponse } from "ethers";
import { HardhatPluginError } from "hardhat/plugins";
import type { HardhatRuntimeEnvironment } from "hardhat/types/hre";
import type { NetworkConnection } from "hardhat/types/network";

import { REPOSITORY_ROOT, resolveRegistryAddress, UsageError } from "../../../scripts/lib/deployment.js";
import type { TicketRegistry } from "../../types/index.js";

export interface ConnectedRegistry {
  connection: NetworkConnection;
  registry: TicketRegistry;
  address: string;
  signer: string;
}

/**
 * Hardhat prints a stack trace under any error but its own and plugins': a usage error becomes a plugin
 * error, which it prints as its message alone.
 */
export function reportingUsageErrors<Args>(action: (args: Args, hre: HardhatRuntimeEnvironment) => Promise<void>) {
  return async (args: Args, hre: HardhatRuntimeEnvironment): Promise<void> => {
    try {
      await action(args, hre);
    } catch (error) {
      if (error instanceof UsageError) throw new HardhatPluginError("registry", error.message, error);
      throw error;
    }
  };
}

/** A task's required option: Hardhat has no required options, only positional arguments. */
export function required(value: string | undefined, option: string): string {
  if (value === undefined || value === "") throw new UsageError(`${option} is required`);
  return value;
}

export async function connectRegistry(hre: HardhatRuntimeEnvironment, registryArg?: string): Promise<ConnectedRegistry> {
  const connection = await hre.network.getOrCreate();
  const { ethers, networkName } = connection;
  const address = resolveRegistryAddress(REPOSITORY_ROOT, networkName, registryArg);
  if ((await ethers.provider.getCode(address)) === "0x") {
    throw new UsageError(`No contract at ${address} on network "${networkName}"`);
  }
  const [signer] = await ethers.getSigners();
  if (!signer) throw new UsageError(`Network "${networkName}" has no account to send from`);
  const registry = await ethers.getContractAt("TicketRegistry", address, signer);
  return { connection, registry, address, signer: signer.address };
}

/** Fails before sending anything, with a message clearer than the revert would be. */
export async function requireAdmin({ registry, address, signer }: ConnectedRegistry): Promise<void> {
  if (!(await registry.hasRole(await registry.DEFAULT_ADMIN_ROLE(), signer))) {
    throw new UsageError(`${signer} does not have DEFAULT_ADMIN_ROLE on ${address}`);
  }
}

export async function confirm(tx: ContractTransactionResponse): Promise<string> {
  const receipt = await tx.wait();
  return `tx ${tx.hash}, block ${receipt?.blockNumber ?? "?"}`;
}

export function yesNo(value: boolean): string {
  return value ? "yes" : "no";
}
