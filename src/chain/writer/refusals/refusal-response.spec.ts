import { describe, expect, it } from "vitest";

import { NODE_REFUSALS } from "../broadcast/node-refusal";
import { responseTo } from "./refusal-response";

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
