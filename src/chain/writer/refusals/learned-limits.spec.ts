import { describe, expect, it } from "vitest";

import type { SignedTransaction } from "../signed-transaction";
import { FLOOR_BYTES, FLOOR_GAS, LearnedLimits } from "./learned-limits";

const SIGNER = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8";
const CONFIGURED = { gas: 16_000_000, bytes: 126_976 };

function refused(bytes: number, gasLimit: bigint): SignedTransaction {
  return {
    id: "t",
    signer: SIGNER,
    chainId: 1n,
    nonce: 1n,
    attempt: 1,
    hash: "0x01",
    raw: "0x" + "ab".repeat(bytes),
    gasLimit,
    maxFeePerGas: 1n,
    maxPriorityFeePerGas: 1n,
    itemCount: 10,
  };
}

describe("LearnedLimits", () => {
  it("halves the bytes after oversized data and the gas after exceeds block gas limit, within the configured limits", () => {
    const limits = new LearnedLimits();
    expect(limits.learn(refused(100_000, 1_000_000n), "oversized data")).toBe(true);
    expect(limits.of(SIGNER, CONFIGURED)).toMatchObject({ bytes: 50_000, gas: 16_000_000 });
    expect(limits.learn(refused(40_000, 3_000_000n), "exceeds block gas limit")).toBe(true);
    expect(limits.of(SIGNER, CONFIGURED)).toMatchObject({ bytes: 50_000, gas: 1_500_000 });
  });

  it("learns nothing from a refusal of a transaction at or below the floor: a node refusing everything for a while does not shrink batches to nothing", () => {
    const limits = new LearnedLimits();
    expect(limits.learn(refused(FLOOR_BYTES, 5_000_000n), "oversized data")).toBe(false);
    expect(limits.learn(refused(1_000, BigInt(FLOOR_GAS)), "exceeds block gas limit")).toBe(false);
    expect(limits.of(SIGNER, CONFIGURED)).toEqual({ ...CONFIGURED, calldataGasPerByte: 0 });
    expect(limits.learn(refused(50_000, 1n), "oversized data")).toBe(true);
    expect(limits.of(SIGNER, CONFIGURED).bytes).toBe(FLOOR_BYTES);
  });

  it("doubles the calldata price per intrinsic gas too low, from EIP-7623's floor, up to a cap", () => {
    const limits = new LearnedLimits();
    const prices = [1, 2, 3, 4, 5, 6, 7, 8].map(() => {
      limits.learn(refused(1_000, 100_000n), "intrinsic gas too low");
      return limits.of(SIGNER, CONFIGURED).calldataGasPerByte;
    });
    expect(prices).toEqual([40, 80, 160, 320, 640, 1_024, 1_024, 1_024]);
    expect(limits.learn(refused(1_000, 100_000n), "intrinsic gas too low")).toBe(false);
  });
});
