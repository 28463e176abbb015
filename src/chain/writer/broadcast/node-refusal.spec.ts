import { describe, expect, it } from "vitest";

import { classifyRefusal, nodeErrorMessage } from "./node-refusal";

describe("classifyRefusal", () => {
  it.each([
    ["oversized data", "oversized data"],
    ["already known", "already known"],
    ["nonce too low: next nonce 12, tx nonce 11", "nonce too low"],
    ["replacement transaction underpriced", "replacement transaction underpriced"],
    ["transaction underpriced: tip needed 30000000000, tip permitted 1000000000", "transaction underpriced"],
    ["exceeds block gas limit", "exceeds block gas limit"],
    ["intrinsic gas too low: gas 21000, minimum needed 53000", "intrinsic gas too low"],
    ["insufficient funds for gas * price + value: balance 0, tx cost 1000, overshot 1000", "insufficient funds for gas * price + value"],
    ["txpool is full", "txpool is full"],
    ["max fee per gas less than block base fee: address 0xabc, maxFeePerGas: 1, baseFee: 2", "max fee per gas less than block base fee"],
    ["Already Known", "already known"],
    ["execution reverted", "other"],
    ["", "other"],
  ])("%j is %j", (message, expected) => {
    expect(classifyRefusal(message)).toBe(expected);
  });

  it("tells a replacement underpriced from a transaction underpriced", () => {
    expect(classifyRefusal("replacement transaction underpriced")).not.toBe("transaction underpriced");
  });
});

describe("nodeErrorMessage", () => {
  it("reads the node's JSON-RPC error from what ethers throws", () => {
    expect(nodeErrorMessage({ code: "UNKNOWN_ERROR", error: { code: -32000, message: "txpool is full" } })).toBe("txpool is full");
    expect(nodeErrorMessage({ code: "NONCE_EXPIRED", info: { error: { code: -32000, message: "nonce too low" } } })).toBe("nonce too low");
  });

  it("is null when no node answered", () => {
    expect(nodeErrorMessage(new Error("connect ECONNREFUSED 127.0.0.1:8545"))).toBeNull();
    expect(nodeErrorMessage(null)).toBeNull();
    expect(nodeErrorMessage("timeout")).toBeNull();
  });
});
