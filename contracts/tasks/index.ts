import { task, types } from "hardhat/config";
import { HardhatPluginError } from "hardhat/plugins";
import type { ActionType, ConfigurableTaskDefinition, HardhatRuntimeEnvironment } from "hardhat/types";
import type { ContractTransactionResponse } from "ethers";
// Types only: this file is loaded with the config, before compilation generates typechain-types.
import type { TicketRegistry } from "../../typechain-types";
import { collectionUri, publicBaseUrlProblem, tokenBaseUri } from "../../src/common/public-urls";
import { parseAddress, parseAddressList, readDeployment, resolveRegistryAddress, UsageError } from "../lib/deployment";

interface RegistryArgs {
  registry?: string;
}

interface AccountArgs extends RegistryArgs {
  account: string;
}

interface StatusArgs extends RegistryArgs {
  accounts?: string;
}

interface UriArgs extends RegistryArgs {
  publicBaseUrl?: string;
  baseUri?: string;
  contractUri?: string;
}

interface ConnectedRegistry {
  registry: TicketRegistry;
  address: string;
  signer: string;
}

function registryTask(name: string, description: string): ConfigurableTaskDefinition {
  return task(name, description).addOptionalParam(
    "registry",
    "Registry address (default: the one recorded in <DEPLOYMENTS_DIR>/<network>.json)",
    undefined,
    types.string,
  );
}

/** Hardhat prints a stack trace under any Error, but only the message of a plugin error. */
function reportingUsageErrors<Args>(action: (args: Args, hre: HardhatRuntimeEnvironment) => Promise<void>): ActionType<Args> {
  return async (args, hre) => {
    try {
      await action(args, hre);
    } catch (error) {
      if (error instanceof UsageError) throw new HardhatPluginError("registry", error.message, error);
      throw error;
    }
  };
}

async function connectRegistry(hre: HardhatRuntimeEnvironment, registryArg?: string): Promise<ConnectedRegistry> {
  const address = resolveRegistryAddress(hre.config.paths.root, hre.network.name, registryArg);
  if ((await hre.ethers.provider.getCode(address)) === "0x") {
    throw new UsageError(`No contract at ${address} on network "${hre.network.name}"`);
  }
  const [signer] = await hre.ethers.getSigners();
  if (!signer) throw new UsageError(`Network "${hre.network.name}" has no account to send from`);
  const registry = await hre.ethers.getContractAt("TicketRegistry", address, signer);
  return { registry, address, signer: signer.address };
}

/** Fails before sending anything, with a message clearer than the revert would be. */
async function requireAdmin({ registry, address, signer }: ConnectedRegistry): Promise<void> {
  if (!(await registry.hasRole(await registry.DEFAULT_ADMIN_ROLE(), signer))) {
    throw new UsageError(`${signer} does not have DEFAULT_ADMIN_ROLE on ${address}`);
  }
}

async function confirm(tx: ContractTransactionResponse): Promise<string> {
  const receipt = await tx.wait();
  return `tx ${tx.hash}, block ${receipt?.blockNumber ?? "?"}`;
}

function yesNo(value: boolean): string {
  return value ? "yes" : "no";
}

registryTask("registry:grant-operator", "Grants OPERATOR_ROLE to an account")
  .addParam("account", "Address to grant OPERATOR_ROLE to", undefined, types.string)
  .setAction(
    reportingUsageErrors(async ({ registry: registryArg, account }: AccountArgs, hre) => {
      const connected = await connectRegistry(hre, registryArg);
      const operator = parseAddress(account, "--account");
      const { registry, address } = connected;
      const role = await registry.OPERATOR_ROLE();
      if (await registry.hasRole(role, operator)) {
        console.log(`${operator} already has OPERATOR_ROLE on ${address}; nothing sent`);
        return;
      }
      await requireAdmin(connected);
      const result = await confirm(await registry.grantRole(role, operator));
      console.log(`Granted OPERATOR_ROLE to ${operator} on ${address} (${result})`);
    }),
  );

registryTask("registry:revoke-operator", "Revokes OPERATOR_ROLE from an account")
  .addParam("account", "Address to revoke OPERATOR_ROLE from", undefined, types.string)
  .setAction(
    reportingUsageErrors(async ({ registry: registryArg, account }: AccountArgs, hre) => {
      const connected = await connectRegistry(hre, registryArg);
      const operator = parseAddress(account, "--account");
      const { registry, address } = connected;
      const role = await registry.OPERATOR_ROLE();
      if (!(await registry.hasRole(role, operator))) {
        console.log(`${operator} does not have OPERATOR_ROLE on ${address}; nothing sent`);
        return;
      }
      await requireAdmin(connected);
      const result = await confirm(await registry.revokeRole(role, operator));
      console.log(`Revoked OPERATOR_ROLE from ${operator} on ${address} (${result})`);
    }),
  );

registryTask("registry:pause", "Stops every operator write until registry:unpause").setAction(
  reportingUsageErrors(async ({ registry: registryArg }: RegistryArgs, hre) => {
    const connected = await connectRegistry(hre, registryArg);
    const { registry, address } = connected;
    if (await registry.paused()) {
      console.log(`Registry ${address} is already paused; nothing sent`);
      return;
    }
    await requireAdmin(connected);
    const result = await confirm(await registry.pause());
    console.log(`Paused registry ${address} (${result})`);
  }),
);

registryTask("registry:unpause", "Lets operators write again").setAction(
  reportingUsageErrors(async ({ registry: registryArg }: RegistryArgs, hre) => {
    const connected = await connectRegistry(hre, registryArg);
    const { registry, address } = connected;
    if (!(await registry.paused())) {
      console.log(`Registry ${address} is not paused; nothing sent`);
      return;
    }
    await requireAdmin(connected);
    const result = await confirm(await registry.unpause());
    console.log(`Unpaused registry ${address} (${result})`);
  }),
);

/** The base URI and contract URI a registry:set-uris call asks for: explicit ones win over those of --public-base-url. */
function wantedUris({ publicBaseUrl, baseUri, contractUri }: UriArgs): { baseURI?: string; contractURI?: string } {
  if (publicBaseUrl === undefined && baseUri === undefined && contractUri === undefined) {
    throw new UsageError("Give --public-base-url (the service's public address), or --base-uri and/or --contract-uri");
  }
  if (publicBaseUrl !== undefined) {
    const problem = publicBaseUrlProblem(publicBaseUrl);
    if (problem) throw new UsageError(`--public-base-url: ${problem}`);
  }
  return {
    baseURI: baseUri ?? (publicBaseUrl === undefined ? undefined : tokenBaseUri(publicBaseUrl)),
    contractURI: contractUri ?? (publicBaseUrl === undefined ? undefined : collectionUri(publicBaseUrl)),
  };
}

registryTask("registry:set-uris", "Points the tokens' metadata (base URI) and the collection's (contractURI, ERC-7572) at the service")
  .addOptionalParam("publicBaseUrl", "The service's PUBLIC_BASE_URL: base URI {url}/tokens/, contract URI {url}/tokens/collection", undefined, types.string)
  .addOptionalParam("baseUri", "The tokenURI prefix, instead of the one --public-base-url gives", undefined, types.string)
  .addOptionalParam("contractUri", "The collection metadata URI, instead of the one --public-base-url gives", undefined, types.string)
  .setAction(
    reportingUsageErrors(async (args: UriArgs, hre) => {
      const wanted = wantedUris(args);
      const connected = await connectRegistry(hre, args.registry);
      const { registry, address } = connected;
      const changes: [label: string, current: string, next: string | undefined, send: (uri: string) => Promise<ContractTransactionResponse>][] = [
        ["base URI", await registry.baseURI(), wanted.baseURI, (uri) => registry.setBaseURI(uri)],
        ["contract URI", await registry.contractURI(), wanted.contractURI, (uri) => registry.setContractURI(uri)],
      ];
      const due = changes.filter(([, current, next]) => next !== undefined && next !== current);
      if (due.length > 0) await requireAdmin(connected);
      for (const [label, current, next, send] of changes) {
        if (next === undefined) continue;
        if (next === current) {
          console.log(`The ${label} of ${address} is already "${current}"; nothing sent`);
          continue;
        }
        const result = await confirm(await send(next));
        console.log(`Set the ${label} of ${address} to "${next}" (${result})`);
      }
    }),
  );

registryTask("registry:status", "Prints the registry's state and the roles of the given accounts")
  .addOptionalParam("accounts", "Comma-separated addresses to check for OPERATOR_ROLE", undefined, types.string)
  .setAction(
    reportingUsageErrors(async ({ registry: registryArg, accounts }: StatusArgs, hre) => {
      const { registry, address, signer } = await connectRegistry(hre, registryArg);
      const adminRole = await registry.DEFAULT_ADMIN_ROLE();
      const operatorRole = await registry.OPERATOR_ROLE();
      const recorded = readDeployment(hre.config.paths.root, hre.network.name);
      const record = recorded?.address.toLowerCase() === address.toLowerCase() ? recorded : undefined;
      const { chainId } = await hre.ethers.provider.getNetwork();

      console.log(`Registry  ${address} on ${hre.network.name} (chainId ${chainId})`);
      console.log(`Paused    ${yesNo(await registry.paused())}`);
      console.log(`Base URI  "${await registry.baseURI()}"`);
      console.log(`Contract URI  "${await registry.contractURI()}"`);
      console.log(`Admin     ${signer} (signer): ${yesNo(await registry.hasRole(adminRole, signer))}`);
      if (record && record.admin !== signer) {
        console.log(`Admin     ${record.admin} (recorded): ${yesNo(await registry.hasRole(adminRole, record.admin))}`);
      }
      for (const account of parseAddressList(accounts, "--accounts")) {
        console.log(`Operator  ${account}: ${yesNo(await registry.hasRole(operatorRole, account))}`);
      }
    }),
  );
