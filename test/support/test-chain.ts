import { getCreateAddress, id, JsonRpcProvider, Network, Wallet } from "ethers";

import { type ChainNode, type ChainNodeSpec, chainIdOf, PRODUCTION_LIKE_ANVIL, startChainNode } from "../../scripts/stack/chain-node";
import { devAccountKeys } from "../../scripts/stack/dev-accounts";
import { type TicketRegistry, TicketRegistry__factory } from "../../typechain-types";

export { freePort } from "../../scripts/stack/ports";

/** The keys of Hardhat's development accounts #0 to #3: #0 deploys and administers, the rest sign. */
export const HARDHAT_KEYS = devAccountKeys(4);

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
export type TestChainNode = ChainNodeSpec;

/** The production-like chain the suite also runs on (vitest.config.mts's "anvil" project): Polygon Amoy's chain id, 2-second blocks, a 45M gas limit, a 30 gwei base fee. */
export const ANVIL_CHAIN: TestChainNode = PRODUCTION_LIKE_ANVIL;

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
  const node = await startTestNode(chainNode);
  try {
    return await deployed(node.url, chainNode, HARDHAT_KEYS.slice(1, 1 + signers), node.stop);
  } catch (error) {
    await node.stop();
    throw error;
  }
}

/** A node of its own, answering JSON-RPC, with nothing deployed on it. */
export async function startTestNode(chainNode: TestChainNode = defaultChainNode()): Promise<{ url: string; stop: () => Promise<void> }> {
  const node: ChainNode = await startChainNode(chainNode);
  return {
    url: node.url,
    stop: async () => {
      await node.stop("SIGKILL");
    },
  };
}

/**
 * A fresh registry on a node other test files use too (one node per Vitest worker), with `signers`
 * new operators funded by the admin: accounts no earlier file signed with, so no nonce, ledger
 * binding or balance of theirs carries over. `stop` leaves the node running.
 */
export async function deployTestChain(url: string, signers = 1, chainNode: TestChainNode = defaultChainNode()): Promise<TestChain> {
  const signerKeys = Array.from({ length: signers }, () => Wallet.createRandom().privateKey);
  return deployed(url, chainNode, signerKeys, async () => undefined);
}

/** The registry's role of the accounts that may write to it (its OPERATOR_ROLE constant). */
const OPERATOR_ROLE = id("OPERATOR_ROLE");

/** What each new operator of a shared node is given: far more than a test file spends on gas. */
const OPERATOR_FUNDS = 100n * 10n ** 18n;

/** How often the tests' provider looks for a new block while a transaction is waited for (ethers' default: 4 s, two of Anvil's blocks). */
const POLLING_INTERVAL_MS = 100;

/** More than `grantRole` takes; given because its estimate, made before the registry is mined, would be a plain transfer's. */
const GRANT_ROLE_GAS = 200_000n;

async function deployed(url: string, chainNode: TestChainNode, signerKeys: string[], stopNode: () => Promise<void>): Promise<TestChain> {
  const chainId = chainIdOf(chainNode);
  // No response cache: ethers shares identical requests for 250 ms, so a second transaction sent right
  // after the first would reuse its pending nonce.
  // A plain network: ethers' named networks carry plugins that reach third-party services (chain 137's gas station).
  const provider = new JsonRpcProvider(url, new Network("test", chainId), { staticNetwork: true, cacheTimeout: -1, pollingInterval: POLLING_INTERVAL_MS });
  const admin = new Wallet(HARDHAT_KEYS[0], provider);
  const operators = signerKeys.map((key) => new Wallet(key).address);
  // The deployment, the operators' roles and their funds are sent without waiting in between, each at
  // a nonce of its own: one block for all on Anvil, whose blocks come every 2 seconds.
  let nonce = await admin.getNonce("pending");
  const registryAddress = getCreateAddress({ from: admin.address, nonce });
  const registry = TicketRegistry__factory.connect(registryAddress, admin);
  const deployment = await new TicketRegistry__factory(admin).getDeployTransaction(admin.address, "Ticket Registry", "TICKET", "", "");
  const sent = [await admin.sendTransaction({ ...deployment, nonce: nonce++ })];
  for (const operator of operators) sent.push(await registry.grantRole(OPERATOR_ROLE, operator, { nonce: nonce++, gasLimit: GRANT_ROLE_GAS }));
  if (!signerKeys.every((key) => HARDHAT_KEYS.includes(key))) {
    for (const operator of operators) sent.push(await admin.sendTransaction({ to: operator, value: OPERATOR_FUNDS, nonce: nonce++ }));
  }
  // wait() throws for a transaction that reverted.
  await Promise.all(sent.map((tx) => tx.wait()));
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
      await stopNode();
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
