import { Wallet } from "ethers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { startTestChain, type TestChain } from "../support/test-chain";

/**
 * The second node implementation: Anvil with a production-like chain (Polygon Amoy's chain id,
 * 2-second blocks, a 45M gas limit, a 30 gwei base fee) takes the deployment and runs the registry.
 */
describe("a test chain on Anvil", () => {
  let chain: TestChain;

  beforeAll(async () => {
    chain = await startTestChain(2, { kind: "anvil", chainId: 80002, blockTime: 2, gasLimit: 45_000_000n, baseFee: 30_000_000_000n });
  });

  afterAll(async () => {
    await chain?.stop();
  });

  it("runs with the chain id, gas limit and base fee asked for, and the registry's operators granted", async () => {
    expect(BigInt(await chain.send("eth_chainId"))).toBe(80002n);
    const block = (await chain.send("eth_getBlockByNumber", ["latest", false])) as { gasLimit: string; baseFeePerGas: string };
    expect(BigInt(block.gasLimit)).toBe(45_000_000n);
    expect(BigInt(block.baseFeePerGas)).toBeLessThanOrEqual(30_000_000_000n);
    const operatorRole = await chain.registry.OPERATOR_ROLE();
    expect(chain.signerKeys).toHaveLength(2);
    for (const key of chain.signerKeys) expect(await chain.registry.hasRole(operatorRole, new Wallet(key).address)).toBe(true);
  });
});
