import { type ChildProcess, spawn } from "node:child_process";
import { createServer } from "node:net";

import { JsonRpcProvider, Network, Wallet } from "ethers";

import { type AnvilOptions, spawnAnvil } from "../../scripts/lib/anvil-node";
import { hardhatNodeArgs, ROOT, rpcUrlOf, waitForRpc } from "../../scripts/lib/embedded-chain";
import { type TicketRegistry, TicketRegistry__factory } from "../../typechain-types";

/** The well-known keys of Hardhat's development accounts: #0 deploys and administers, the rest sign. */
export const HARDHAT_KEYS = [
  "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80",
  "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d",
  "0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a",
  "0x7c852118294e51e653712a81e05800f419141751be58f605c371e15141b007a6",
];

export interface TestChain {
  url: string;
  provider: JsonRpcProvider;
  registry: TicketRegistry;
  registryAddress: string;
  signerKeys: string[];
  /** The node implementation it runs, and its settings. */
  node: TestChainNode;
  chainId: number;
  /** The app's environment for this chain. */
  env: Record<string, string>;
  send: (method: string, params?: unknown[]) => Promise<any>;
  /** Stops the node process (for outage tests put a tcp-proxy.ts proxy in front of it instead). */
  stop: () => Promise<void>;
}

/** Which node implementation a test chain runs, and Anvil's settings (chain id, block time, gas limit, base fee). */
export type TestChainNode = { kind: "hardhat" } | ({ kind: "anvil" } & Omit<AnvilOptions, "port">);

/** The production-like chain the suite also runs on (vitest.config.mts's "anvil" project): Polygon Amoy's chain id, 2-second blocks, a 45M gas limit, a 30 gwei base fee. */
export const ANVIL_CHAIN: TestChainNode = { kind: "anvil", chainId: 80002, blockTime: 2, gasLimit: 45_000_000n, baseFee: 30_000_000_000n };

/** The node a test chain runs when the test does not say: TEST_CHAIN_NODE=anvil is ANVIL_CHAIN, otherwise Hardhat's automining node. */
export function defaultChainNode(): TestChainNode {
  const kind = process.env.TEST_CHAIN_NODE ?? "hardhat";
  if (kind === "anvil") return ANVIL_CHAIN;
  if (kind === "hardhat") return { kind: "hardhat" };
  throw new Error(`TEST_CHAIN_NODE must be hardhat or anvil, not ${kind}`);
}

/** Whether the tests' default node is Anvil (for what differs by node: RPC methods, timing, `it.skipIf`). */
export const onAnvil = (): boolean => defaultChainNode().kind === "anvil";

/**
 * A real JSON-RPC node in a child process (TEST_CHAIN_NODE's, Hardhat's automining node unless told
 * otherwise; an explicit `chainNode` wins) with the registry deployed and `signers` operators.
 */
export async function startTestChain(signers = 1, chainNode: TestChainNode = defaultChainNode()): Promise<TestChain> {
  const port = await freePort();
  const url = rpcUrlOf(port);
  const node =
    chainNode.kind === "anvil"
      ? spawnAnvil({ ...chainNode, port })
      : spawn(process.execPath, hardhatNodeArgs(port), { cwd: ROOT, stdio: "ignore", detached: true });
  const kill = async () => {
    if (node.exitCode === null && node.signalCode === null) {
      process.kill(-(node.pid as number), "SIGKILL");
      await new Promise((resolve) => node.once("exit", resolve));
    }
  };
  try {
    return await deployed(node, url, signers, kill, chainNode);
  } catch (error) {
    await kill();
    throw error;
  }
}

async function deployed(node: ChildProcess, url: string, signers: number, kill: () => Promise<void>, chainNode: TestChainNode): Promise<TestChain> {
  const chainId = chainNode.kind === "anvil" ? (chainNode.chainId ?? 31337) : 31337;
  await waitForRpc(url, node);
  // No response cache: ethers shares identical requests for 250 ms, so a second transaction sent right
  // after the first would reuse its pending nonce.
  // A plain network: ethers' named networks carry plugins that reach third-party services (chain 137's gas station).
  const provider = new JsonRpcProvider(url, new Network("test", chainId), { staticNetwork: true, cacheTimeout: -1 });
  const admin = new Wallet(HARDHAT_KEYS[0], provider);
  const registry = await new TicketRegistry__factory(admin).deploy(admin.address, "Ticket Registry", "TICKET", "", "");
  await registry.waitForDeployment();
  const signerKeys = HARDHAT_KEYS.slice(1, 1 + signers);
  for (const key of signerKeys) await (await registry.grantRole(await registry.OPERATOR_ROLE(), new Wallet(key).address)).wait();
  const registryAddress = await registry.getAddress();
  return {
    url,
    provider,
    registry,
    registryAddress,
    signerKeys,
    node: chainNode,
    chainId,
    env: { CHAIN_RPC_URL: url, REGISTRY_ADDRESS: registryAddress, SIGNER_PRIVATE_KEYS: signerKeys.join(","), BATCH_MAX_WAIT_MS: "50", RECEIPT_POLL_MS: "100" },
    send: (method, params = []) => provider.send(method, params),
    stop: async () => {
      provider.destroy();
      await kill();
    },
  };
}

/**
 * Blocks only on request (`evm_mine`) from now on. Hardhat: automine off. Anvil: `evm_setAutomine`
 * false leaves interval mining running, so its interval is set to 0 (no mining) instead.
 */
export async function pauseMining(chain: TestChain): Promise<void> {
  if (chain.node.kind === "anvil") await chain.send("evm_setIntervalMining", [0]);
  else await chain.send("evm_setAutomine", [false]);
}

/**
 * The node's own mining again: Hardhat's automine, or Anvil's block time (`evm_setAutomine` true
 * would turn Anvil into an automining node for the rest of the file).
 */
export async function resumeMining(chain: TestChain): Promise<void> {
  if (chain.node.kind === "hardhat") await chain.send("evm_setAutomine", [true]);
  else if (chain.node.blockTime !== undefined) await chain.send("evm_setIntervalMining", [chain.node.blockTime]);
  else await chain.send("evm_setAutomine", [true]);
}

/** The base fee of the next block, in wei. */
export async function setNextBlockBaseFee(chain: TestChain, wei: bigint): Promise<void> {
  await chain.send(chain.node.kind === "anvil" ? "anvil_setNextBlockBaseFeePerGas" : "hardhat_setNextBlockBaseFeePerGas", ["0x" + wei.toString(16)]);
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
    server.on("error", reject);
  });
}

/** Polls `check` until it returns a value other than undefined, or fails after `timeoutMs`. */
export async function eventually<T>(check: () => Promise<T | undefined>, timeoutMs = 30_000, what = "condition"): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
