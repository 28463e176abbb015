import { describe, expect, it } from "vitest";

import { NODE_REFUSALS } from "../sending/node-refusal";
import { backOffMs, MAX_BACK_OFF_MS, responseTo } from "./refusal-response";

describe("responseTo", () => {
  it("answers each of geth's and bor's refusals with what fixes it", () => {
    expect(Object.fromEntries(NODE_REFUSALS.map((refusal) => [refusal, responseTo(refusal)]))).toEqual({
      "oversized data": "replan",
      "already known": "accepted",
      "nonce too low": "resync_nonce",
      "replacement transaction underpriced": "bump",
      "transaction underpriced": "bump",
      "exceeds block gas limit": "replan",
      "intrinsic gas too low": "replan",
      "insufficient funds for gas * price + value": "wait_for_funds",
      "txpool is full": "back_off",
      "max fee per gas less than block base fee": "bump",
    });
  });

  it("backs off what it cannot tell apart: another message, or no answer at all", () => {
    expect(responseTo("other")).toBe("back_off");
    expect(responseTo(null)).toBe("back_off");
  });
});

describe("backOffMs", () => {
  it("waits the poll interval after the first refusal, doubles after each next one, and stops growing at the maximum", () => {
    expect([1, 2, 3, 4].map((failures) => backOffMs(failures, 500))).toEqual([500, 1_000, 2_000, 4_000]);
    expect(backOffMs(20, 500)).toBe(MAX_BACK_OFF_MS);
  });
});
