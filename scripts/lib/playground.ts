import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";

import { keccak256, toUtf8Bytes } from "ethers";

import { type ChainNode, startChainNode } from "../stack/chain-node";
import { createDatabase, databaseNameOf, dropDatabase } from "../stack/database";
import { EMBEDDED_SIGNER_KEY } from "../stack/dev-accounts";
import { answersRpc, ChainStartError, rpcCall, rpcUrlOf } from "../stack/json-rpc";
import { ROOT } from "../stack/paths";
import { deployRegistry } from "../stack/registry-deployment";
import { compiledCodeHash, ledgerKey, parseRecords, pointRegistryAt, recordProblem, type RegistryRecords } from "./playground-registry";

/**
 * The playground `npm start` keeps between runs: an Anvil chain whose state lives in a file of the
 * data folder (`.data/playground` unless PLAYGROUND_DATA_DIR says otherwise), the registry deployed
 * on it for each ledger (database) and recorded beside it, and the ledgers that refer to that chain.
 * A ledger is bound to one registry: another DATABASE_URL on a kept chain gets a registry of its own. A new chain (first
 * start, state file removed, `--fresh`) means a new ledger: the old one would refer to a chain that
 * no longer exists.
 */
export const PLAYGROUND_CHAIN_ID = 31337;
const STATE_FILE = "chain-state.json";
const REGISTRY_FILE = "registry.json";
const LOG_FILE = "anvil.log";
/** Anvil's process id while it runs, for whoever must stop a chain left behind. */
export const PID_FILE = "anvil.pid";
/** Time Anvil gets to write its state at a stop before it is killed (the state is at most a second old then). */
const STOP_GRACE_MS = 15_000;

/** PLAYGROUND_DATA_DIR (relative to the repository) or `.data/playground`. */
export function playgroundDataDir(): string {
  return resolve(ROOT, process.env.PLAYGROUND_DATA_DIR || join(".data", "playground"));
}

export interface PlaygroundChain {
  rpcUrl: string;
  registryAddress: string;
  stateFile: string;
  /** True when the chain was loaded from an earlier run's state and the registry recorded then is still on it, of the same code. */
  kept: boolean;
  /** True when the chain was loaded from an earlier run's state (its registry may be new all the same). */
  stateKept: boolean;
  /** Why the chain's state was kept but not its registry (a new one was deployed); null otherwise. */
  replaced: string | null;
  /** Whether a kept registry's token and collection URIs were pointed at publicBaseUrl now. */
  repointed: boolean;
  /** The registries of the chain's other ledgers (by ledgerKey), which stay theirs. */
  otherLedgers: { ledger: string; address: string }[];
}

export interface PlaygroundOptions {
  dataDir: string;
  port: number;
  /** The address granted OPERATOR_ROLE when the registry is deployed. */
  operator: string;
  /** The service's public address: the registry's tokenURI and contractURI point at its token metadata. */
  publicBaseUrl: string;
  /** Forget the chain kept in the data folder and start a new one. */
  fresh: boolean;
  /** The ledger's database (DATABASE_URL): the registry recorded for it is kept, another ledger's never used. */
  databaseUrl: string;
  /** Told of the Anvil node as soon as it answers, with the way to stop it gracefully. */
  onStart?: (node: ChainNode, stop: () => Promise<void>) => void;
}

/**
 * Starts the playground chain from its kept state (or a new one) and makes sure the registry is on
 * it. Anvil is stopped gracefully (SIGTERM: it writes its state and exits) with the `stop` given to
 * `onStart`, and gets SIGTERM too when this process exits while it runs; it is stopped here when the
 * start fails.
 */
export async function startPlaygroundChain(options: PlaygroundOptions): Promise<PlaygroundChain> {
  const { dataDir, port } = options;
  mkdirSync(dataDir, { recursive: true });
  const stateFile = join(dataDir, STATE_FILE);
  const registryFile = join(dataDir, REGISTRY_FILE);
  if (options.fresh) {
    rmSync(stateFile, { force: true });
    rmSync(registryFile, { force: true });
  }
  const rpcUrl = rpcUrlOf(port);
  if (await answersRpc(rpcUrl)) {
    throw new ChainStartError(`something already answers JSON-RPC on ${rpcUrl} (an Anvil left from an earlier start?): stop it, or set EMBEDDED_CHAIN_PORT`);
  }
  const stateKept = existsSync(stateFile);
  const logFile = join(dataDir, LOG_FILE);
  writeFileSync(logFile, "");
  const hint = `; see ${logFile}${stateKept ? ` (if the chain state cannot be loaded, start fresh: npm run start:fresh)` : ""}`;
  // Its own process group: a Ctrl-C in the terminal reaches npm start, which stops the service first
  // and Anvil after it, so that no write of the service is cut short.
  const node = await startChainNode({
    kind: "anvil",
    port,
    chainId: PLAYGROUND_CHAIN_ID,
    stateFile,
    output: { file: logFile },
    signalAtExit: "SIGTERM",
    exitHint: hint,
  });
  writeFileSync(join(dataDir, PID_FILE), `${node.process.pid}\n`);
  void node.process.exited.then(() => rmSync(join(dataDir, PID_FILE), { force: true }));
  const stop = async () => void (await node.stop("SIGTERM", STOP_GRACE_MS));
  options.onStart?.(node, stop);
  try {
    await fund(rpcUrl, options.operator);
    const codeHash = compiledCodeHash();
    const ledger = ledgerKey(options.databaseUrl);
    const records: RegistryRecords = (stateKept ? readRecords(registryFile) : null) ?? { chainId: PLAYGROUND_CHAIN_ID, registries: {} };
    const recorded = stateKept ? await recordedRegistry(records, ledger, rpcUrl, codeHash) : { address: undefined, problem: null };
    const registryAddress = recorded.address ?? (await deployRegistry(rpcUrl, [options.operator], options.publicBaseUrl));
    if (!recorded.address) {
      records.registries[ledger] = { address: registryAddress, codeHash, deployedAt: new Date().toISOString() };
      writeRecords(registryFile, records);
    }
    const repointed = recorded.address ? await pointRegistryAt(rpcUrl, recorded.address, options.publicBaseUrl) : false;
    const otherLedgers = Object.entries(records.registries)
      .filter(([key]) => key !== ledger)
      .map(([key, record]) => ({ ledger: key, address: record.address }));
    return { rpcUrl, registryAddress, stateFile, kept: recorded.address !== undefined, stateKept, replaced: recorded.problem, repointed, otherLedgers };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** The registry recorded for this ledger when it can be kept (see recordProblem), else why not. */
async function recordedRegistry(
  records: RegistryRecords,
  ledger: string,
  rpcUrl: string,
  codeHash: string,
): Promise<{ address: string | undefined; problem: string | null }> {
  const record = records.registries[ledger];
  if (!record && records.chainId === PLAYGROUND_CHAIN_ID && Object.keys(records.registries).length > 0) {
    return { address: undefined, problem: "no registry is recorded for this ledger: other ledgers wrote to the chain's" };
  }
  const code = typeof record?.address === "string" ? await rpcCall<string>(rpcUrl, "eth_getCode", [record.address, "latest"]) : "0x";
  const problem = recordProblem({ chainId: records.chainId, ...record }, PLAYGROUND_CHAIN_ID, code, codeHash);
  return problem ? { address: undefined, problem } : { address: record?.address, problem: null };
}

/** The records of the registry file; null when it is missing or unreadable (a new registry is deployed). */
function readRecords(file: string): RegistryRecords | null {
  try {
    return existsSync(file) ? parseRecords(JSON.parse(readFileSync(file, "utf8")), ledgerKey(DEV_DATABASE_URL)) : null;
  } catch {
    return null;
  }
}

function writeRecords(file: string, records: RegistryRecords): void {
  writeFileSync(file, `${JSON.stringify(records, null, 2)}\n`);
}

/** The database `npm start` uses by default for the playground's ledger. */
export const DEV_DATABASE_URL = "postgres://postgres@127.0.0.1:5432/ticket_registry_dev";

/**
 * The signer of a ledger on the playground chain: the embedded key for the playground's own database,
 * a key of its own for any other. Two ledgers sharing a key would each find the signer's nonces moved
 * on behind its back, and the writer stops such a signer until `signer reconcile`.
 */
export function playgroundSignerKey(databaseUrl: string): string {
  const ledger = ledgerKey(databaseUrl);
  return ledger === ledgerKey(DEV_DATABASE_URL) ? EMBEDDED_SIGNER_KEY : keccak256(toUtf8Bytes(`${EMBEDDED_SIGNER_KEY}:${ledger}`));
}

/** 10,000 ether: what Anvil gives each of its own accounts. */
const PLAYGROUND_BALANCE = 10n ** 22n;

/** A signer of the playground's own (see playgroundSignerKey) is funded as Anvil's accounts are, once. */
async function fund(rpcUrl: string, address: string): Promise<void> {
  if (BigInt(await rpcCall<string>(rpcUrl, "eth_getBalance", [address, "latest"])) > 0n) return;
  await rpcCall<null>(rpcUrl, "anvil_setBalance", [address, `0x${PLAYGROUND_BALANCE.toString(16)}`]);
}

/**
 * Only these databases are ever emptied: the playground's own, and the throwaway databases of the
 * tests (`ticket_registry_test_*`), which run `npm start` against one of their own.
 */
export function isPlaygroundDatabase(databaseUrl: string): boolean {
  const name = databaseNameOf(databaseUrl);
  return name === "ticket_registry_dev" || /^ticket_registry_test_[a-z0-9_]+$/.test(name);
}

/** Drops and creates the playground's database (the service migrates it at boot). */
export async function emptyPlaygroundDatabase(databaseUrl: string): Promise<void> {
  if (!isPlaygroundDatabase(databaseUrl)) throw new Error(`refusing to empty ${databaseNameOf(databaseUrl)}: only the playground's database is ever emptied`);
  await dropDatabase(databaseUrl);
  await createDatabase(databaseUrl);
}
