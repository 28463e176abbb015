import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/**
 * The pieces of a local chain: a Hardhat JSON-RPC node in its own process (the soak and fault runs
 * and the compose chain) and the registry deployed by scripts/deploy.ts with the service's signer
 * as operator (also on `npm start`'s Anvil playground, scripts/lib/playground.ts).
 */
export const ROOT = join(__dirname, "..", "..");
export const HARDHAT_CLI = join(ROOT, "node_modules", "hardhat", "internal", "cli", "cli.js");
/** Hardhat's well-known development account #1: a throwaway key that only a local chain knows. */
export const EMBEDDED_SIGNER_KEY = "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d";

/** Arguments of `node` that run a Hardhat node on hostname:port (loopback unless told otherwise). */
export function hardhatNodeArgs(port: number, hostname = "127.0.0.1"): string[] {
  return [HARDHAT_CLI, "node", "--hostname", hostname, "--port", String(port)];
}

export const rpcUrlOf = (port: number) => `http://127.0.0.1:${port}`;

/** Waits until the node answers eth_chainId; `exitHint` explains an early exit of `node`. */
export async function waitForRpc(url: string, node: ChildProcess, exitHint = "", timeoutMs = 120_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (node.exitCode !== null || node.signalCode !== null) throw new ChainStartError(`the chain node exited (${node.exitCode ?? node.signalCode})${exitHint}`);
    if (await answersChainId(url)) return;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new ChainStartError(`the chain node did not answer on ${url} within ${timeoutMs / 1000} s`);
}

/** A local chain that could not be brought up (the node exited, or never answered). */
export class ChainStartError extends Error {
  override name = "ChainStartError";
}

async function answersChainId(url: string): Promise<boolean> {
  const body = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_chainId", params: [] });
  return fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body }).then(
    (response) => response.ok,
    () => false,
  );
}

/**
 * Deploys the registry with scripts/deploy.ts on the node at `rpcUrl`, `operator` granted, its tokenURI and
 * contractURI at the service's `publicBaseUrl` when given; its address.
 */
export async function deployRegistry(rpcUrl: string, operator: string, publicBaseUrl?: string): Promise<string> {
  const deployments = mkdtempSync(join(tmpdir(), "ticket-registry-embedded-"));
  try {
    await runHardhat(["run", "scripts/deploy.ts", "--network", "localhost"], {
      LOCALHOST_RPC_URL: rpcUrl,
      REGISTRY_OPERATORS: operator,
      DEPLOYMENTS_DIR: deployments,
      ...(publicBaseUrl ? { PUBLIC_BASE_URL: publicBaseUrl } : {}),
    });
    return (JSON.parse(readFileSync(join(deployments, "localhost.json"), "utf8")) as { address: string }).address;
  } finally {
    rmSync(deployments, { recursive: true, force: true });
  }
}

/** Runs a Hardhat command to its end; its errors go to this process's stderr. */
export function runHardhat(args: string[], env: Record<string, string> = {}): Promise<void> {
  const child = spawn(process.execPath, [HARDHAT_CLI, ...args], { cwd: ROOT, stdio: ["ignore", "ignore", "inherit"], env: { ...process.env, ...env } });
  return new Promise((resolve, reject) => {
    child.once("error", reject);
    child.once("exit", (code, signal) => (code === 0 ? resolve() : reject(new Error(`hardhat ${args[0]} failed (${code ?? signal})`))));
  });
}
