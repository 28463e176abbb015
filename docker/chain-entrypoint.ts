/**
 * The chain container's process: the Hardhat node with the registry deployed (see chain-node.ts).
 * It runs as PID 1, so it handles SIGTERM itself: the node stops and the container exits at once.
 * When the node dies the container exits with it, so a dead chain never looks healthy.
 */
import { ChainNodeError, startChainNode } from "./chain-node";

async function main(): Promise<void> {
  // Nothing to stop until the node has started.
  let stop = (): Promise<void> => Promise.resolve();
  // Registered first: a stop during the deployment must not wait for Docker's SIGKILL either.
  for (const signal of ["SIGTERM", "SIGINT"] as const) {
    process.once(signal, () => void stop().then(() => process.exit(0)));
  }
  const chain = await startChainNode(process.env, "inherit");
  stop = () => chain.stop();
  console.log(`TicketRegistry deployed at ${chain.registryAddress}; chain ready (record ${chain.deploymentFile})`);
  process.exitCode = await chain.exited;
}

main().catch((error: unknown) => {
  console.error(error instanceof ChainNodeError ? error.message : error);
  process.exit(1);
});
