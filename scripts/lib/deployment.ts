import * as fs from "node:fs";
import * as path from "node:path";
import { getAddress } from "ethers";

// Loaded by the contract workspace's deploy script and tasks (ESM, through Hardhat's TypeScript loader) as
// well as by the service's tooling: plain Node and ethers only, nothing of Hardhat.

/**
 * The repository's root, where `deployments/` is: the deploy script and the tasks run in contracts/, but
 * operators and the service read the records here, and a relative DEPLOYMENTS_DIR is taken from here.
 */
export const REPOSITORY_ROOT = path.resolve(__dirname, "..", "..");

/** A failure the user can fix from its message alone, so it is reported without a stack trace. */
export class UsageError extends Error {
  override name = "UsageError";
}

/** What `contracts/scripts/deploy.ts` records about one deployment, one file per network. */
export interface DeploymentRecord {
  network: string;
  chainId: number;
  address: string;
  blockNumber: number;
  txHash: string;
  deployer: string;
  admin: string;
  operators: string[];
  name: string;
  symbol: string;
  baseURI: string;
  contractURI: string;
  compilerVersion: string;
  /** The solc settings the bytecode was compiled with (optimizer, EVM version, viaIR...): what a verifier must use. */
  compilerSettings: Record<string, unknown>;
  /** The Hardhat build info holding the exact sources and settings: contracts/artifacts/build-info/<id>.json. */
  buildInfoId: string;
  /** `src/TicketRegistry.sol:TicketRegistry`: the fully qualified name a verifier asks for. */
  contract: string;
  /** The commit of the sources deployed, and whether the working tree had changes (null outside a git checkout). */
  git: { commit: string; dirty: boolean } | null;
  deployedAt: string;
  abi: unknown[];
}

/** `DEPLOYMENTS_DIR` when set, else `deployments`; relative paths are taken from `root`. */
export function deploymentsDir(root: string): string {
  return path.resolve(root, process.env.DEPLOYMENTS_DIR || "deployments");
}

export function deploymentFile(root: string, network: string): string {
  return path.join(deploymentsDir(root), `${network}.json`);
}

export function writeDeployment(root: string, record: DeploymentRecord): string {
  const file = deploymentFile(root, record.network);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, `${JSON.stringify(record, null, 2)}\n`);
  return file;
}

/** The recorded deployment of `network`, or undefined when there is none. */
export function readDeployment(root: string, network: string): DeploymentRecord | undefined {
  const file = deploymentFile(root, network);
  if (!fs.existsSync(file)) return undefined;
  return JSON.parse(fs.readFileSync(file, "utf8")) as DeploymentRecord;
}

/** Checksums `value`, naming `source` in the error so the caller knows which input to fix. */
export function parseAddress(value: string, source: string): string {
  try {
    return getAddress(value.trim());
  } catch {
    throw new UsageError(`${source}: "${value}" is not a valid address`);
  }
}

/** A comma-separated list of addresses; blanks are ignored and duplicates dropped. */
export function parseAddressList(value: string | undefined, source: string): string[] {
  const entries = (value ?? "")
    .split(",")
    .map((entry) => entry.trim())
    .filter((entry) => entry !== "");
  return [...new Set(entries.map((entry) => parseAddress(entry, source)))];
}

/** `explicit` when given, else the address recorded for `network`. */
export function resolveRegistryAddress(root: string, network: string, explicit?: string): string {
  if (explicit) return parseAddress(explicit, "--registry");
  const record = readDeployment(root, network);
  if (!record) {
    const expected = deploymentFile(root, network);
    throw new UsageError(`No registry address for network "${network}": pass --registry or deploy first (expected ${expected})`);
  }
  return parseAddress(record.address, deploymentFile(root, network));
}
