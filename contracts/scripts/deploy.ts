/**
 * Deploys TicketRegistry and records it in <DEPLOYMENTS_DIR>/<network>.json.
 *
 *   npm run deploy -- --network <name>                    (from the repository's root)
 *   npx hardhat run scripts/deploy.ts --network <name>   (inside contracts/)
 *
 * Environment (hardhat run takes no arguments):
 *   REGISTRY_ADMIN      holder of DEFAULT_ADMIN_ROLE (default: the deployer)
 *   REGISTRY_NAME       ERC-721 name (default "Ticket Registry")
 *   REGISTRY_SYMBOL     ERC-721 symbol (default "TICKET")
 *   PUBLIC_BASE_URL     the service's public address: the token metadata it serves there becomes the
 *                       registry's base URI ({PUBLIC_BASE_URL}/tokens/) and contractURI
 *                       ({PUBLIC_BASE_URL}/tokens/collection)
 *   REGISTRY_BASE_URI   tokenURI prefix, instead of the one PUBLIC_BASE_URL gives (default "")
 *   REGISTRY_CONTRACT_URI  collection metadata URI (ERC-7572), instead of the one PUBLIC_BASE_URL gives (default "")
 *   REGISTRY_OPERATORS  comma-separated addresses granted OPERATOR_ROLE right after the deployment
 *   DEPLOYMENTS_DIR     where the record is written (default "deployments"; a relative path is taken from
 *                       the repository's root, where operators and the service read it)
 */
import { execFileSync } from "node:child_process";
import { readFile } from "node:fs/promises";

import type { HardhatEthersSigner } from "@nomicfoundation/hardhat-ethers/types";
import hre from "hardhat";
import type { SolidityBuildInfo } from "hardhat/types/solidity";

import { type DeploymentRecord, parseAddress, parseAddressList, REPOSITORY_ROOT, UsageError, writeDeployment } from "../../scripts/lib/deployment.js";
import { collectionUri, publicBaseUrlProblem, tokenBaseUri } from "../../src/common/public-urls.js";
import type { TicketRegistry } from "../types/index.js";

const CONTRACT = "src/TicketRegistry.sol:TicketRegistry";

const { ethers, networkName } = await hre.network.getOrCreate();

interface DeployParams {
  admin: string;
  name: string;
  symbol: string;
  baseURI: string;
  contractURI: string;
  operators: string[];
}

interface Deployed {
  registry: TicketRegistry;
  address: string;
  txHash: string;
  blockNumber: number;
}

function readParams(deployer: string): DeployParams {
  const env = process.env;
  const publicBaseUrl = readPublicBaseUrl(env.PUBLIC_BASE_URL);
  return {
    admin: env.REGISTRY_ADMIN ? parseAddress(env.REGISTRY_ADMIN, "REGISTRY_ADMIN") : deployer,
    name: env.REGISTRY_NAME ?? "Ticket Registry",
    symbol: env.REGISTRY_SYMBOL ?? "TICKET",
    baseURI: env.REGISTRY_BASE_URI ?? (publicBaseUrl ? tokenBaseUri(publicBaseUrl) : ""),
    contractURI: env.REGISTRY_CONTRACT_URI ?? (publicBaseUrl ? collectionUri(publicBaseUrl) : ""),
    operators: parseAddressList(env.REGISTRY_OPERATORS, "REGISTRY_OPERATORS"),
  };
}

function readPublicBaseUrl(value: string | undefined): string | null {
  if (!value) return null;
  const problem = publicBaseUrlProblem(value);
  if (problem) throw new UsageError(`PUBLIC_BASE_URL: ${problem}`);
  return value;
}

/** Operators are granted by the admin, so its key must be at hand; checked before anything is sent. */
async function findAdminSigner(params: DeployParams): Promise<HardhatEthersSigner | undefined> {
  if (params.operators.length === 0) return undefined;
  const signers = await ethers.getSigners();
  const admin = signers.find((signer) => signer.address.toLowerCase() === params.admin.toLowerCase());
  if (!admin) {
    throw new UsageError(
      `REGISTRY_OPERATORS needs the admin ${params.admin} to sign the grants, but network "${networkName}" ` +
        "has no account for it: deploy without REGISTRY_OPERATORS and grant them from the admin " +
        "with registry:grant-operator",
    );
  }
  return admin;
}

async function deployRegistry(deployer: HardhatEthersSigner, params: DeployParams): Promise<Deployed> {
  const factory = await ethers.getContractFactory("TicketRegistry", deployer);
  const registry = await factory.deploy(params.admin, params.name, params.symbol, params.baseURI, params.contractURI);
  const tx = registry.deploymentTransaction();
  const receipt = await tx?.wait();
  if (!tx || !receipt) throw new Error("The deployment transaction has no receipt");
  return { registry, address: await registry.getAddress(), txHash: tx.hash, blockNumber: receipt.blockNumber };
}

async function grantOperators(registry: TicketRegistry, admin: HardhatEthersSigner, operators: string[]): Promise<void> {
  const role = await registry.OPERATOR_ROLE();
  for (const operator of operators) {
    const tx = await registry.connect(admin).grantRole(role, operator);
    await tx.wait();
    console.log(`  granted OPERATOR_ROLE to ${operator} (tx ${tx.hash})`);
  }
}

type Build = Pick<DeploymentRecord, "compilerVersion" | "compilerSettings" | "buildInfoId" | "contract" | "git" | "abi">;

/** Read before deploying, so that a missing build cannot leave a deployed contract unrecorded. */
async function readBuild(): Promise<Build> {
  const buildInfoId = await hre.artifacts.getBuildInfoId(CONTRACT);
  const buildInfoPath = buildInfoId === undefined ? undefined : await hre.artifacts.getBuildInfoPath(buildInfoId);
  if (buildInfoId === undefined || buildInfoPath === undefined) throw new UsageError(`No build info for ${CONTRACT}: compile first`);
  const buildInfo = JSON.parse(await readFile(buildInfoPath, "utf8")) as SolidityBuildInfo;
  const { abi }: { abi: readonly unknown[] } = await hre.artifacts.readArtifact(CONTRACT);
  // The output selection says what the build wrote, not how the bytecode was made.
  const { outputSelection: _written, ...compilerSettings } = buildInfo.input.settings;
  return { compilerVersion: buildInfo.solcLongVersion, compilerSettings, buildInfoId, contract: CONTRACT, git: gitState(), abi: [...abi] };
}

/** The checked-out commit and whether anything differs from it; null where the sources are not a git checkout. */
function gitState(): DeploymentRecord["git"] {
  const git = (...args: string[]) => execFileSync("git", args, { cwd: REPOSITORY_ROOT, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim();
  try {
    return { commit: git("rev-parse", "HEAD"), dirty: git("status", "--porcelain") !== "" };
  } catch {
    return null;
  }
}

async function buildRecord(deployer: string, params: DeployParams, build: Build, deployed: Deployed): Promise<DeploymentRecord> {
  const { chainId } = await ethers.provider.getNetwork();
  return {
    network: networkName,
    chainId: Number(chainId),
    address: deployed.address,
    blockNumber: deployed.blockNumber,
    txHash: deployed.txHash,
    deployer,
    admin: params.admin,
    operators: params.operators,
    name: params.name,
    symbol: params.symbol,
    baseURI: params.baseURI,
    contractURI: params.contractURI,
    compilerVersion: build.compilerVersion,
    compilerSettings: build.compilerSettings,
    buildInfoId: build.buildInfoId,
    contract: build.contract,
    git: build.git,
    deployedAt: new Date().toISOString(),
    abi: build.abi,
  };
}

async function main(): Promise<void> {
  const [deployer] = await ethers.getSigners();
  if (!deployer) throw new UsageError(`Network "${networkName}" has no account to deploy from`);
  const params = readParams(deployer.address);
  const adminSigner = await findAdminSigner(params);
  const build = await readBuild();

  console.log(`Deploying TicketRegistry "${params.name}" (${params.symbol}) to ${networkName} from ${deployer.address}`);
  const deployed = await deployRegistry(deployer, params);
  console.log(`  deployed at ${deployed.address} in block ${deployed.blockNumber} (tx ${deployed.txHash})`);
  if (adminSigner) await grantOperators(deployed.registry, adminSigner, params.operators);

  const file = writeDeployment(REPOSITORY_ROOT, await buildRecord(deployer.address, params, build, deployed));
  console.log(`  admin ${params.admin}, ${params.operators.length} operator(s), base URI "${params.baseURI}", contract URI "${params.contractURI}"`);
  console.log(`  recorded in ${file}`);
}

// Awaited, so that `hardhat run` ends only after the deployment; a usage error prints its message alone.
await main().catch((error: unknown) => {
  console.error(error instanceof UsageError ? error.message : error);
  process.exitCode = 1;
});
