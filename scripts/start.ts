/**
 * `npm start`: the service against the chain in CHAIN_RPC_URL, or, when none is set, against an
 * embedded local Hardhat chain (JSON-RPC on 127.0.0.1:8545) with the registry freshly deployed by
 * scripts/deploy.ts and the service's signer made an operator.
 *
 * The embedded chain lives in memory, so its ledger does too: unless DATABASE_URL is given, the
 * service uses the database `ticket_registry_dev` and empties it at every embedded start.
 */
import { type ChildProcess, spawn } from "node:child_process";

import { Wallet } from "ethers";
import { Client } from "pg";

import { deployRegistry, EMBEDDED_SIGNER_KEY, hardhatNodeArgs, ROOT, rpcUrlOf, runHardhat, waitForRpc } from "./lib/embedded-chain";

const EMBEDDED_PORT = Number(process.env.EMBEDDED_CHAIN_PORT ?? 8545);
const EMBEDDED_RPC_URL = rpcUrlOf(EMBEDDED_PORT);
const DEV_DATABASE_URL = "postgres://postgres@127.0.0.1:5432/ticket_registry_dev";

async function main(): Promise<void> {
  // The service takes the registry's ABI from the compiled artifacts.
  await runHardhat(["compile", "--quiet"]);
  if (!process.env.CHAIN_RPC_URL) await startEmbedded();
  // Loaded only now: it needs the compiled types and the environment set above, and starts the
  // service as it loads. A require, because ts-node cannot resolve a dynamic import of a .ts file.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  require("../src/main");
}

async function startEmbedded(): Promise<void> {
  const node = spawn(process.execPath, hardhatNodeArgs(EMBEDDED_PORT), { cwd: ROOT, stdio: "ignore" });
  stopWithParent(node);
  await waitForRpc(EMBEDDED_RPC_URL, node, `; is port ${EMBEDDED_PORT} taken? Set EMBEDDED_CHAIN_PORT`);
  const signer = new Wallet(EMBEDDED_SIGNER_KEY);
  const registryAddress = await deployRegistry(EMBEDDED_RPC_URL, signer.address);
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
