import { afterEach, describe, expect, it } from "vitest";

import { type ChainNode, PRODUCTION_LIKE_ANVIL, startChainNode } from "../../scripts/stack/chain-node";
import { ChainStartError, rpcCall } from "../../scripts/stack/json-rpc";

/** startChainNode brings up either node behind one interface, answering JSON-RPC with its chain id. */
describe("startChainNode", () => {
  const started: ChainNode[] = [];

  afterEach(async () => {
    for (const node of started.splice(0)) await node.stop("SIGKILL");
  });

  it("starts Hardhat's node on a free port, answering with chain id 31337", async () => {
    const node = await startChainNode({ kind: "hardhat" });
    started.push(node);
    expect(node.chainId).toBe(31337);
    expect(BigInt(await rpcCall<string>(node.url, "eth_chainId"))).toBe(31337n);
  });

  it("starts Anvil with the production-like chain's settings", async () => {
    const node = await startChainNode(PRODUCTION_LIKE_ANVIL);
    started.push(node);
    expect(node.chainId).toBe(80002);
    expect(BigInt(await rpcCall<string>(node.url, "eth_chainId"))).toBe(80002n);
    const block = await rpcCall<{ gasLimit: string; baseFeePerGas: string }>(node.url, "eth_getBlockByNumber", ["latest", false]);
    expect(BigInt(block.gasLimit)).toBe(45_000_000n);
    expect(BigInt(block.baseFeePerGas)).toBe(30_000_000_000n);
  });

  it("stops Anvil when its lifeline (stdin) closes, as when this process dies", async () => {
    const node = await startChainNode({ kind: "anvil" });
    started.push(node);
    node.process.child.stdin?.end();
    // SIGTERM from the lifeline's watcher: Anvil shuts down cleanly.
    expect(await node.process.exited).toEqual({ code: 0, signal: null });
  });

  it("fails with a ChainStartError, with the hint, when the node exits before it answers", async () => {
    await expect(startChainNode({ kind: "anvil", hostname: "256.0.0.1", exitHint: "; see its log" })).rejects.toThrow(
      new ChainStartError("the chain node exited (2); see its log"),
    );
  });
});
