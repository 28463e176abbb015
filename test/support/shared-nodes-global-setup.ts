import type { TestProject } from "vitest/node";

import { type TestChainNode, ANVIL_CHAIN, startTestNode } from "./test-chain";

/** The URLs of the shared nodes of one kind, in Vitest pool order: TEST_SHARED_NODES_HARDHAT, TEST_SHARED_NODES_ANVIL. */
export const sharedNodesEnv = (kind: TestChainNode["kind"]) => `TEST_SHARED_NODES_${kind.toUpperCase()}`;

/**
 * Vitest global setup of the projects whose files run on a chain: one node per worker (Vitest's
 * VITEST_POOL_ID, 1 to maxWorkers, names the worker, and a worker runs one file at a time), on which
 * each file deploys a registry of its own (see useChainApp). A node takes seconds to start; a
 * registry, one block. The project's TEST_CHAIN_NODE says which kind; projects of the same kind share
 * the first one's nodes.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const chainNode: TestChainNode = project.config.env?.TEST_CHAIN_NODE === "anvil" ? ANVIL_CHAIN : { kind: "hardhat" };
  const name = sharedNodesEnv(chainNode.kind);
  if (process.env[name] !== undefined) return async () => undefined;
  const nodes = await Promise.all(Array.from({ length: project.config.maxWorkers }, () => startTestNode(chainNode)));
  process.env[name] = nodes.map((node) => node.url).join(",");
  return async () => {
    delete process.env[name];
    await Promise.all(nodes.map((node) => node.stop()));
  };
}

/** This worker's shared node of the kind, if the run started them. */
export function sharedNodeUrl(kind: TestChainNode["kind"]): string | undefined {
  const urls = process.env[sharedNodesEnv(kind)]?.split(",");
  const pool = Number(process.env.VITEST_POOL_ID);
  return urls?.[pool - 1];
}
