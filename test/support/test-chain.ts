import { type ChildProcess, spawn } from "node:child_process";
import { createServer } from "node:net";
import { join } from "node:path";

import { JsonRpcProvider, Network, Wallet } from "ethers";

import { type TicketRegistry, TicketRegistry__factory } from "../../typechain-types";

const ROOT = join(__dirname, "..", "..");
const HARDHAT_CLI = join(ROOT, "node_modules", "hardhat", "internal", "cli", "cli.js");

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
  /** The app's environment for this chain. */
  env: Record<string, string>;
  send: (method: string, params?: unknown[]) => Promise<any>;
  /** Stops the node process (for outage tests put a tcp-proxy.ts proxy in front of it instead). */
  stop: () => Promise<void>;
}

/** A real Hardhat JSON-RPC node in a child process with the registry deployed and `signers` operators. */
export async function startTestChain(signers = 1): Promise<TestChain> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const node = spawn(process.execPath, [HARDHAT_CLI, "node", "--hostname", "127.0.0.1", "--port", String(port)], { cwd: ROOT, stdio: "ignore", detached: true });
  const kill = async () => {
    if (node.exitCode === null && node.signalCode === null) {
      process.kill(-(node.pid as number), "SIGKILL");
      await new Promise((resolve) => node.once("exit", resolve));
    }
  };
  try {
    return await deployed(node, url, signers, kill);
  } catch (error) {
    await kill();
    throw error;
  }
}

async function deployed(node: ChildProcess, url: string, signers: number, kill: () => Promise<void>): Promise<TestChain> {
  await waitForRpc(url, node);
  // No response cache: ethers shares identical requests for 250 ms, so a second transaction sent right
  // after the first would reuse its pending nonce.
  const provider = new JsonRpcProvider(url, Network.from(31337), { staticNetwork: true, cacheTimeout: -1 });
  const admin = new Wallet(HARDHAT_KEYS[0], provider);
  const registry = await new TicketRegistry__factory(admin).deploy(admin.address, "Ticket Registry", "TICKET", "");
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
    env: { CHAIN_RPC_URL: url, REGISTRY_ADDRESS: registryAddress, SIGNER_PRIVATE_KEYS: signerKeys.join(","), BATCH_MAX_WAIT_MS: "50", RECEIPT_POLL_MS: "100" },
    send: (method, params = []) => provider.send(method, params),
    stop: async () => {
      provider.destroy();
      await kill();
    },
  };
}

async function waitForRpc(url: string, node: ChildProcess): Promise<void> {
  const deadline = Date.now() + 90_000;
  while (Date.now() < deadline) {
    if (node.exitCode !== null) throw new Error(`hardhat node exited with ${node.exitCode}`);
    const ok = await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_chainId", params: [] }) }).then(
      (response) => response.ok,
      () => false,
    );
    if (ok) return;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error("hardhat node did not answer within 90 s");
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
