/**
 * `npm start`: the service against the chain in CHAIN_RPC_URL, or, when none is set, against an
 * embedded local Hardhat chain (JSON-RPC on 127.0.0.1:8545) with the registry freshly deployed by
 * scripts/deploy.ts and the service's signer made an operator.
 *
 * The embedded chain lives in memory, so its ledger does too: unless DATABASE_URL is given, the
 * service uses the database `ticket_registry_dev` and empties it at every embedded start.
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

import { Wallet } from "ethers";
import { Client } from "pg";

const ROOT = join(__dirname, "..");
const HARDHAT = join(ROOT, "node_modules", "hardhat", "internal", "cli", "cli.js");
const EMBEDDED_PORT = Number(process.env.EMBEDDED_CHAIN_PORT ?? 8545);
const EMBEDDED_RPC_URL = `http://127.0.0.1:${EMBEDDED_PORT}`;
const DEV_DATABASE_URL = "postgres://postgres@127.0.0.1:5432/ticket_registry_dev";
/** Hardhat's well-known development account #1: a throwaway key that only the embedded chain knows. */
const EMBEDDED_SIGNER_KEY = "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d";

async function main(): Promise<void> {
  // The service takes the registry's ABI from the compiled artifacts.
  hardhat(["compile", "--quiet"]);
  if (!process.env.CHAIN_RPC_URL) await startEmbedded();
  require("../src/main");
}

async function startEmbedded(): Promise<void> {
  const node = spawn(process.execPath, [HARDHAT, "node", "--hostname", "127.0.0.1", "--port", String(EMBEDDED_PORT)], { cwd: ROOT, stdio: "ignore" });
  stopWithParent(node);
  await waitForRpc(node);
  const signer = new Wallet(EMBEDDED_SIGNER_KEY);
  const registryAddress = deployRegistry(signer.address);
  Object.assign(process.env, {
    CHAIN_RPC_URL: EMBEDDED_RPC_URL,
    REGISTRY_ADDRESS: registryAddress,
    SIGNER_PRIVATE_KEYS: EMBEDDED_SIGNER_KEY,
    CHAIN_EMBEDDED: "true",
  });
  if (!process.env.DATABASE_URL) {
    await resetDevDatabase();
    process.env.DATABASE_URL = DEV_DATABASE_URL;
  }
  console.log(`Embedded chain: JSON-RPC ${EMBEDDED_RPC_URL} (chain id 31337), TicketRegistry at ${registryAddress}, signer ${signer.address}`);
}

function deployRegistry(operator: string): string {
  const deployments = mkdtempSync(join(tmpdir(), "ticket-registry-embedded-"));
  hardhat(["run", "scripts/deploy.ts", "--network", "localhost"], {
    LOCALHOST_RPC_URL: EMBEDDED_RPC_URL,
    REGISTRY_OPERATORS: operator,
    DEPLOYMENTS_DIR: deployments,
  });
  return (JSON.parse(readFileSync(join(deployments, "localhost.json"), "utf8")) as { address: string }).address;
}

function hardhat(args: string[], env: Record<string, string> = {}): void {
  execFileSync(process.execPath, [HARDHAT, ...args], { cwd: ROOT, stdio: ["ignore", "ignore", "inherit"], env: { ...process.env, ...env } });
}

async function resetDevDatabase(): Promise<void> {
  const client = new Client({ connectionString: "postgres://postgres@127.0.0.1:5432/postgres" });
  await client.connect();
  try {
    await client.query("DROP DATABASE IF EXISTS ticket_registry_dev WITH (FORCE)");
    await client.query("CREATE DATABASE ticket_registry_dev");
  } finally {
    await client.end();
  }
}

async function waitForRpc(node: ChildProcess): Promise<void> {
  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline) {
    if (node.exitCode !== null) throw new Error(`the embedded chain exited (code ${node.exitCode}); is port ${EMBEDDED_PORT} taken? Set EMBEDDED_CHAIN_PORT`);
    const body = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_chainId", params: [] });
    const ok = await fetch(EMBEDDED_RPC_URL, { method: "POST", headers: { "content-type": "application/json" }, body }).then((r) => r.ok, () => false);
    if (ok) return;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error("the embedded chain did not start within 120 s");
}

/** The chain goes when the service goes; the service's own shutdown hooks decide when that is. */
function stopWithParent(node: ChildProcess): void {
  const stop = () => {
    if (node.exitCode === null) node.kill("SIGTERM");
  };
  process.once("exit", stop);
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
