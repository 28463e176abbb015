import { statSync } from "node:fs";
import { join } from "node:path";

import { JsonRpcProvider, Network, Wallet } from "ethers";

import { type ChainNode, type ChainNodeKind, PRODUCTION_LIKE_ANVIL, startChainNode } from "../../scripts/stack/chain-node";
import { devAccountKeys } from "../../scripts/stack/dev-accounts";
import type { OwnedProcess } from "../../scripts/stack/owned-process";
import { deployRegistry } from "../../scripts/stack/registry-deployment";
import { type TicketRegistry, TicketRegistry__factory } from "../../typechain-types";

/** How each node is described in figures and tables. */
export const CHAIN_NODE_LABELS: Record<ChainNodeKind, string> = {
  hardhat: "Hardhat, automining",
  anvil: "Anvil, 2 s blocks, 45M gas limit, 30 gwei base fee, chain id 80002",
};

export interface BenchChainOptions {
  kind: ChainNodeKind;
  /** Anvil only: the chain's state is written to this file every `stateIntervalSeconds` and loaded from it at a restart. */
  stateFile?: string;
  stateIntervalSeconds?: number;
  /** Anvil only: keep its log of every request and mined transaction (it runs with --quiet otherwise). */
  verbose?: boolean;
  /** How many signer keys the service gets, each made an operator (default 1: development accounts #1 to #N). */
  signers?: number;
}

/** A local node (Hardhat's automining node or a production-like Anvil) with the registry deployed as `npm start` does it, its signer an operator. */
export interface BenchChain {
  kind: ChainNodeKind;
  label: string;
  chainId: number;
  url: string;
  /** The node's current process (a new one after `killAndRestart`). */
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

export async function startBenchChain(logDir: string, options: BenchChainOptions = { kind: "hardhat" }): Promise<BenchChain> {
  let starts = 0;
  const startNode = (port?: number): Promise<ChainNode> => {
    starts += 1;
    const name = starts === 1 ? "chain" : `chain-${starts}`;
    const logFile = join(logDir, `${name}.log`);
    const spec =
      options.kind === "hardhat"
        ? { kind: "hardhat" as const }
        : { ...PRODUCTION_LIKE_ANVIL, stateFile: options.stateFile, stateIntervalSeconds: options.stateIntervalSeconds, verbose: options.verbose };
    return startChainNode({ ...spec, port, name, output: { file: logFile }, exitHint: `; see ${logFile}` });
  };
  // Development account #0 deploys and administers the registry; #1 to #N sign.
  const signerKeys = devAccountKeys(1 + (options.signers ?? 1)).slice(1);
  let node = await startNode();
  const { url, chainId } = node;
  try {
    const registryAddress = await deployRegistry(
      url,
      signerKeys.map((key) => new Wallet(key).address),
    );
    // No response cache: ethers would share identical calls made within 250 ms.
    const provider = new JsonRpcProvider(url, new Network("bench", BigInt(chainId)), { staticNetwork: true, cacheTimeout: -1 });
    const killAndRestart = async (downMs: number) => {
      await untilJustBeforeStateWrite(options.stateFile as string, (options.stateIntervalSeconds ?? 1) * 1000);
      const blockBefore = await provider.getBlockNumber();
      const killedAt = Date.now();
      await node.stop("SIGKILL");
      await sleep(downMs);
      node = await startNode(node.port);
      return { killedAt, blockBefore, blockAfter: await provider.getBlockNumber() };
    };
    return {
      kind: options.kind,
      label: CHAIN_NODE_LABELS[options.kind],
      chainId,
      url,
      get process() {
        return node.process;
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
