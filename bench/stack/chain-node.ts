import { statSync } from "node:fs";
import { join } from "node:path";

import { HDNodeWallet, JsonRpcProvider, Mnemonic, Network, Wallet } from "ethers";

import { type AnvilOptions, anvilArgs, anvilBinary } from "../../scripts/lib/anvil-node";
import { deployRegistry, EMBEDDED_SIGNER_KEY, hardhatNodeArgs, rpcUrlOf, waitForRpc } from "../../scripts/lib/embedded-chain";
import { freePort } from "../../test/support/test-chain";
import { type TicketRegistry, TicketRegistry__factory } from "../../typechain-types";
import { NODE_GUARD_ARGS, type OwnedProcess, spawnOwned } from "./owned-process";

/** The node implementations a benchmark or a fault run can bring up. */
export type ChainNodeKind = "hardhat" | "anvil";
export const CHAIN_NODE_KINDS: readonly ChainNodeKind[] = ["hardhat", "anvil"];

/**
 * The production-like chain Anvil runs here, as the chain end-to-end suite's Anvil project does:
 * Polygon Amoy's chain id, 2-second blocks, a 45,000,000 gas limit, a 30 gwei base fee.
 */
export const PRODUCTION_LIKE_ANVIL = { chainId: 80002, blockTime: 2, gasLimit: 45_000_000n, baseFee: 30_000_000_000n } as const satisfies Omit<
  AnvilOptions,
  "port"
>;

/** How each node is described in figures and tables. */
export const CHAIN_NODE_LABELS: Record<ChainNodeKind, string> = {
  hardhat: "Hardhat, automining",
  anvil: "Anvil, 2 s blocks, 45M gas limit, 30 gwei base fee, chain id 80002",
};

export interface ChainNodeOptions {
  kind: ChainNodeKind;
  /** Anvil only: the chain's state is written to this file every `stateIntervalSeconds` and loaded from it at a restart. */
  stateFile?: string;
  stateIntervalSeconds?: number;
  /** Anvil only: keep its log of every request and mined transaction (it runs with --quiet otherwise). */
  verbose?: boolean;
  /** How many signer keys the service gets, each made an operator (default 1: development account #1, EMBEDDED_SIGNER_KEY). */
  signers?: number;
}

/** The mnemonic both Hardhat's node and Anvil derive their 20 funded (10,000 ETH) development accounts from. */
const DEV_MNEMONIC = "test test test test test test test test test test test junk";

/** Development accounts #1 to #count (#0 deploys and administers the registry): funded on both nodes, #1 is EMBEDDED_SIGNER_KEY. */
export function devSignerKeys(count: number): string[] {
  const mnemonic = Mnemonic.fromPhrase(DEV_MNEMONIC);
  const keys = Array.from({ length: count }, (_, index) => HDNodeWallet.fromMnemonic(mnemonic, `m/44'/60'/0'/0/${index + 1}`).privateKey);
  if (keys[0] !== EMBEDDED_SIGNER_KEY) throw new Error("development account #1 is not EMBEDDED_SIGNER_KEY: the mnemonic or its path changed");
  return keys;
}

/** A local node (Hardhat's automining node or a production-like Anvil) with the registry deployed as `npm start` does it, its signer an operator. */
export interface ChainNode {
  kind: ChainNodeKind;
  label: string;
  chainId: number;
  url: string;
  /** The node's current process (a new one after `restart`). */
  readonly process: OwnedProcess;
  registryAddress: string;
  /** The service's signer keys (SIGNER_PRIVATE_KEYS), each an operator of the registry. */
  signerKeys: string[];
  provider: JsonRpcProvider;
  registry: TicketRegistry;
  /** The service's chain settings. */
  env: Record<string, string>;
  /**
   * Anvil with a state file only: SIGKILLs the node (no state written at exit) just before its next
   * write of the state file, so that it comes back about a write interval behind (and a write is
   * never cut in half), waits `downMs`, then starts it again on the same port from the state file.
   * Resolves once it answers; the block number before the kill and after the restart.
   */
  killAndRestart?: (downMs: number) => Promise<{ killedAt: number; blockBefore: number; blockAfter: number }>;
  stop: () => Promise<void>;
}

/**
 * Anvil cannot watch for its parent's end, so a shell holds its lifeline and then becomes Anvil
 * (`exec`: the process the run owns is Anvil itself, its pid the one measured and killed): when the
 * run's pipe on stdin closes, however the run ended, the watcher in the background stops Anvil.
 */
const ANVIL_LIFELINE = 'exec 3<&0; { cat <&3 >/dev/null; kill $$ 2>/dev/null; } & exec "$@" </dev/null 3<&-';

export async function startChainNode(logDir: string, options: ChainNodeOptions = { kind: "hardhat" }): Promise<ChainNode> {
  const port = await freePort();
  const url = rpcUrlOf(port);
  const chainId = options.kind === "anvil" ? PRODUCTION_LIKE_ANVIL.chainId : 31337;
  let starts = 0;
  const spawnNode = (): OwnedProcess => {
    starts += 1;
    const name = starts === 1 ? "chain" : `chain-${starts}`;
    const logFile = join(logDir, `${name}.log`);
    if (options.kind === "hardhat") return spawnOwned(name, process.execPath, [...NODE_GUARD_ARGS, ...hardhatNodeArgs(port)], process.env, logFile);
    const args = anvilArgs({ ...PRODUCTION_LIKE_ANVIL, port, stateFile: options.stateFile, stateIntervalSeconds: options.stateIntervalSeconds }).filter(
      (arg) => !(options.verbose && arg === "--quiet"),
    );
    return spawnOwned(name, "sh", ["-c", ANVIL_LIFELINE, "sh", anvilBinary(), ...args], process.env, logFile);
  };
  const signerKeys = devSignerKeys(options.signers ?? 1);
  let node = spawnNode();
  try {
    await waitForRpc(url, node.child, `; see ${node.logFile}`);
    // scripts/deploy.ts takes REGISTRY_OPERATORS as a comma-separated list.
    const registryAddress = await deployRegistry(url, signerKeys.map((key) => new Wallet(key).address).join(","));
    // No response cache: ethers would share identical calls made within 250 ms.
    const provider = new JsonRpcProvider(url, new Network("bench", BigInt(chainId)), { staticNetwork: true, cacheTimeout: -1 });
    const killAndRestart = async (downMs: number) => {
      await untilJustBeforeStateWrite(options.stateFile as string, (options.stateIntervalSeconds ?? 1) * 1000);
      const blockBefore = await provider.getBlockNumber();
      const killedAt = Date.now();
      await node.stop("SIGKILL");
      await new Promise((resolve) => setTimeout(resolve, downMs));
      node = spawnNode();
      await waitForRpc(url, node.child, `; see ${node.logFile}`);
      return { killedAt, blockBefore, blockAfter: await provider.getBlockNumber() };
    };
    return {
      kind: options.kind,
      label: CHAIN_NODE_LABELS[options.kind],
      chainId,
      url,
      get process() {
        return node;
      },
      registryAddress,
      signerKeys,
      provider,
      registry: TicketRegistry__factory.connect(registryAddress, provider),
      env: { CHAIN_RPC_URL: url, REGISTRY_ADDRESS: registryAddress, SIGNER_PRIVATE_KEYS: signerKeys.join(",") },
      ...(options.kind === "anvil" && options.stateFile !== undefined ? { killAndRestart } : {}),
      stop: async () => {
        provider.destroy();
        await node.stop("SIGKILL");
      },
    };
  } catch (error) {
    await node.stop("SIGKILL");
    throw error;
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Resolves shortly before Anvil's next write of `stateFile`: it is written every `intervalMs`; a change of its mtime is a write. */
async function untilJustBeforeStateWrite(stateFile: string, intervalMs: number): Promise<void> {
  const written = () => statSync(stateFile, { throwIfNoEntry: false })?.mtimeMs ?? 0;
  const before = written();
  const deadline = Date.now() + intervalMs * 2;
  while (written() === before && Date.now() < deadline) await sleep(25);
  await sleep(Math.max(0, intervalMs - 750));
}
