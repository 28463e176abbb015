import { Wallet } from "ethers";
import { describe, expect, it } from "vitest";
import { useChainApp } from "../support/chain-app";
import { ANVIL_CHAIN } from "../support/test-chain";

/**
 * The second node implementation: Anvil with a production-like chain (Polygon Amoy's chain id,
 * 2-second blocks, a 45M gas limit, a 30 gwei base fee) takes the deployment and runs the registry.
 */
describe("a test chain on Anvil", () => {
  const chainApp = useChainApp({ signers: 2, node: ANVIL_CHAIN, app: false });

  it("runs with the chain id, gas limit and base fee asked for, and the registry's operators granted", async () => {
    expect(BigInt(await chainApp.chain.send("eth_chainId"))).toBe(80002n);
    const block = (await chainApp.chain.send("eth_getBlockByNumber", ["latest", false])) as { gasLimit: string; baseFeePerGas: string };
    expect(BigInt(block.gasLimit)).toBe(45_000_000n);
    expect(BigInt(block.baseFeePerGas)).toBeLessThanOrEqual(30_000_000_000n);
    const operatorRole = await chainApp.chain.registry.OPERATOR_ROLE();
    expect(chainApp.chain.signerKeys).toHaveLength(2);
    for (const key of chainApp.chain.signerKeys) expect(await chainApp.chain.registry.hasRole(operatorRole, new Wallet(key).address)).toBe(true);
  });
});
