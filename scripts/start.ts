/**
 * `npm start`: the service against the chain in CHAIN_RPC_URL, or, when none is set, against the
 * playground: a local Anvil chain (JSON-RPC on 127.0.0.1:8545, chain id 31337) whose state is kept
 * in the data folder (`.data/playground`, or PLAYGROUND_DATA_DIR), with the registry deployed by
 * scripts/deploy.ts on its first start and the service's signer made an operator.
 *
 * The ledger goes with the chain: unless DATABASE_URL is given, the service uses the database
 * `ticket_registry_dev`, kept while the chain is kept and emptied when the chain is new (first start,
 * state file removed, `--fresh`). `npm run start:fresh` (`npm start -- --fresh`) starts both anew.
 * Ctrl-C stops the service first, then Anvil, which writes its state before it exits.
 */
import type { ChildProcess } from "node:child_process";

import { Wallet } from "ethers";

import { EMBEDDED_SIGNER_KEY, runHardhat } from "./lib/embedded-chain";
import {
  DEV_DATABASE_URL,
  emptyPlaygroundDatabase,
  isPlaygroundDatabase,
  PLAYGROUND_CHAIN_ID,
  playgroundDataDir,
  startPlaygroundChain,
} from "./lib/playground";

const EMBEDDED_PORT = Number(process.env.EMBEDDED_CHAIN_PORT ?? 8545);
const SIGNALS: NodeJS.Signals[] = ["SIGINT", "SIGTERM", "SIGHUP"];
const REPEAT_WINDOW_MS = 2_000;

async function main(): Promise<void> {
  const fresh = process.argv.slice(2).includes("--fresh");
  if (fresh && process.env.CHAIN_RPC_URL) throw new Error("--fresh starts the playground chain anew; it has nothing to do with the chain in CHAIN_RPC_URL");
  // The service takes the registry's ABI from the compiled artifacts.
  await runHardhat(["compile", "--quiet"]);
  if (!process.env.CHAIN_RPC_URL) await startPlayground(fresh);
  // Loaded only now: it needs the compiled types and the environment set above, and starts the
  // service as it loads. A require, because ts-node cannot resolve a dynamic import of a .ts file.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  require("../src/main");
}

async function startPlayground(fresh: boolean): Promise<void> {
  const signer = new Wallet(EMBEDDED_SIGNER_KEY);
  const dataDir = playgroundDataDir();
  const chain = await startPlaygroundChain({ dataDir, port: EMBEDDED_PORT, operator: signer.address, fresh, onSpawn: stopWithService });
  Object.assign(process.env, {
    CHAIN_RPC_URL: chain.rpcUrl,
    REGISTRY_ADDRESS: chain.registryAddress,
    SIGNER_PRIVATE_KEYS: EMBEDDED_SIGNER_KEY,
    CHAIN_EMBEDDED: "true",
  });
  const databaseUrl = process.env.DATABASE_URL || DEV_DATABASE_URL;
  process.env.DATABASE_URL = databaseUrl;
  let ledger: string;
  if (chain.kept) {
    ledger = "kept";
  } else if (isPlaygroundDatabase(databaseUrl)) {
    await emptyPlaygroundDatabase(databaseUrl);
    ledger = "emptied (the chain is new)";
  } else {
    ledger = "NOT emptied though the chain is new (DATABASE_URL names a database other than the playground's)";
  }
  console.log(
    `Playground chain (Anvil): JSON-RPC ${chain.rpcUrl} (chain id ${PLAYGROUND_CHAIN_ID}), ${chain.kept ? "state kept" : "new state"} in ${chain.stateFile}\n` +
      `  TicketRegistry ${chain.registryAddress}${chain.kept ? "" : " (deployed now)"}, signer ${signer.address}; ledger ${ledger}\n` +
      `  start afresh: npm run start:fresh`,
  );
}

/**
 * Anvil stops after the service: on a signal the service's shutdown hooks run first and raise the
 * signal again when they are done (before the service has started, this is the only listener);
 * then Anvil is stopped gracefully, writing its state, and the process exits. A Ctrl-C under
 * `npm start` arrives twice (from the terminal and forwarded by npm): a repeat within
 * REPEAT_WINDOW_MS is that one; a later one stops Anvil without waiting for the service. Any other
 * exit still sends Anvil SIGTERM, so that it writes its state on its own.
 */
function stopWithService(node: ChildProcess, stopChain: () => Promise<void>): void {
  let firstSignalAt: number | undefined;
  const onSignal = (signal: NodeJS.Signals) => {
    const serviceListens = process.listenerCount(signal) > 1;
    if (serviceListens && (firstSignalAt === undefined || Date.now() - firstSignalAt < REPEAT_WINDOW_MS)) {
      firstSignalAt ??= Date.now(); // the service shuts down and raises the signal again
      return;
    }
    for (const other of SIGNALS) process.removeListener(other, onSignal);
    // Further signals wait for Anvil's state rather than kill the process.
    for (const other of SIGNALS) process.on(other, () => undefined);
    void stopChain().finally(() => process.exit(0));
  };
  for (const signal of SIGNALS) process.on(signal, onSignal);
  process.once("exit", () => {
    if (node.exitCode === null && node.signalCode === null) node.kill("SIGTERM");
  });
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
