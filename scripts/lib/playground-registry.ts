import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";

import { Interface } from "ethers";

import { collectionUri, tokenBaseUri } from "../../src/common/public-urls";
import { runHardhat } from "../stack/hardhat";
import { rpcCall } from "../stack/json-rpc";
import { ROOT } from "../stack/paths";

/** What `npm start` records about a registry it deployed on the playground chain. */
export interface RegistryRecord {
  chainId: number;
  address: string;
  /** SHA-256 of the compiled runtime code it was deployed from: a registry of older code is replaced. */
  codeHash?: string;
  deployedAt: string;
}

/**
 * The registries deployed on the playground chain, one per ledger (database, see ledgerKey): a ledger
 * is bound to the registry it first wrote to, so a new ledger on a kept chain gets a registry of its
 * own and the earlier ledgers keep theirs.
 */
export interface RegistryRecords {
  chainId: number;
  registries: Record<string, Omit<RegistryRecord, "chainId">>;
}

/** A ledger's key in the records: its database's host, port and name (never its credentials). */
export function ledgerKey(databaseUrl: string): string {
  const url = new URL(databaseUrl);
  return `${url.host}${url.pathname}`;
}

/**
 * The records as read from the file; a file of one registry (written before registries were kept per
 * ledger) is the default ledger's, `defaultLedger`.
 */
export function parseRecords(raw: unknown, defaultLedger: string): RegistryRecords | null {
  if (typeof raw !== "object" || raw === null) return null;
  const file = raw as Partial<RegistryRecords> & Partial<RegistryRecord>;
  if (typeof file.chainId !== "number") return null;
  if (file.registries && typeof file.registries === "object") return { chainId: file.chainId, registries: file.registries };
  if (typeof file.address !== "string") return { chainId: file.chainId, registries: {} };
  const { address, codeHash, deployedAt = "" } = file;
  return { chainId: file.chainId, registries: { [defaultLedger]: { address, codeHash, deployedAt } } };
}

const ARTIFACT = join(ROOT, "contracts", "artifacts", "src", "TicketRegistry.sol", "TicketRegistry.json");
const URIS = new Interface(["function baseURI() view returns (string)", "function contractURI() view returns (string)"]);

/** SHA-256 of the compiled TicketRegistry's runtime code (the artifact npm start compiles first). */
export function compiledCodeHash(): string {
  if (!existsSync(ARTIFACT)) throw new Error(`${ARTIFACT} is missing: compile first (npm run compile)`);
  const { deployedBytecode } = JSON.parse(readFileSync(ARTIFACT, "utf8")) as { deployedBytecode: string };
  return createHash("sha256").update(deployedBytecode).digest("hex");
}

/**
 * Why the recorded registry cannot be kept, or null when it can: it must be on this chain and be of the
 * code compiled now (a playground kept from an older version of the service has a registry the service
 * no longer speaks to; a new one is deployed, and the ledger goes with the old one).
 */
export function recordProblem(record: Partial<RegistryRecord>, chainId: number, codeOnChain: string, codeHash: string): string | null {
  if (record.chainId !== chainId || typeof record.address !== "string") return "no registry is recorded for this chain";
  if (codeOnChain === "0x") return "the recorded registry is not on the chain";
  if (record.codeHash !== codeHash) return "the registry's code changed since it was deployed";
  return null;
}

/**
 * Points a kept registry's tokenURI and contractURI at `publicBaseUrl` when they point elsewhere (the
 * playground started on another port): the admin, Anvil's unlocked account #0 that deployed it, sends
 * registry:set-uris. Returns whether anything was sent.
 */
export async function pointRegistryAt(rpcUrl: string, registryAddress: string, publicBaseUrl: string): Promise<boolean> {
  const [baseURI, contractURI] = await Promise.all(["baseURI", "contractURI"].map((name) => callString(rpcUrl, registryAddress, name)));
  if (baseURI === tokenBaseUri(publicBaseUrl) && contractURI === collectionUri(publicBaseUrl)) return false;
  await runHardhat(["registry:set-uris", "--registry", registryAddress, "--public-base-url", publicBaseUrl, "--network", "localhost"], {
    env: { ...process.env, LOCALHOST_RPC_URL: rpcUrl },
  });
  return true;
}

async function callString(rpcUrl: string, to: string, name: string): Promise<string> {
  const result = await rpcCall<string>(rpcUrl, "eth_call", [{ to, data: URIS.encodeFunctionData(name) }, "latest"]);
  return URIS.decodeFunctionResult(name, result)[0] as string;
}
