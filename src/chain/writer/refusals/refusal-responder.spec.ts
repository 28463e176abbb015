import { describe, expect, it } from "vitest";

import { loadConfig } from "../../../config/app-config";
import type { OpenTransaction } from "../signed-transaction";
import { RefusalResponder } from "./refusal-responder";

const SIGNER = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8";

function openTransaction(nonce: bigint): OpenTransaction {
  return {
    id: `tx-${nonce}`,
    signer: SIGNER,
    chainId: 31337n,
    nonce,
    attempt: 1,
    hash: `0x${nonce.toString(16).padStart(64, "0")}`,
    raw: "0x02",
    gasLimit: 1_000_000n,
    maxFeePerGas: 2_000_000_000n,
    maxPriorityFeePerGas: 1_000_000_000n,
    itemCount: 1,
    status: "signed",
    broadcastAt: null,
    createdAt: new Date(),
  };
}

/** Only the in-memory bookkeeping is exercised: the collaborators answering a refusal are not reached. */
function responder(): RefusalResponder {
  const unused = {} as never;
  return new RefusalResponder(unused, unused, unused, unused, unused, unused, unused, unused, unused, unused, loadConfig({}));
}

describe("RefusalResponder", () => {
  it("keeps a nonce the node refused to the writer from going out again until the watcher has taken the refusal to answer it", () => {
    const refusals = responder();
    const refused = openTransaction(7n);
    refusals.refusedToWriter(refused, { accepted: false, refusal: "replacement transaction underpriced" });

    expect(refusals.mayRetry(refused)).toBe(false);
    expect(refusals.mayRetry(openTransaction(8n))).toBe(true);
    expect(refusals.takeUnanswered(refused)).toEqual({ accepted: false, refusal: "replacement transaction underpriced" });
    expect(refusals.mayRetry(refused)).toBe(true);
  });
});
