import { describe, expect, it } from "vitest";

import { loadConfig } from "../../../config/app-config";
import type { SignedTransaction } from "../signed-transaction";
import { signedTransaction, TEST_SIGNER as SIGNER } from "../../../../test/support/signed-transactions";
import { backOffMs, MAX_BACK_OFF_MS, RetryBackOff } from "./retry-back-off";

function signed(nonce: bigint): SignedTransaction {
  return signedTransaction(nonce, { gasLimit: 1_000_000n, maxFeePerGas: 2_000_000_000n, maxPriorityFeePerGas: 1_000_000_000n });
}

describe("RetryBackOff", () => {
  it("holds only the refused bytes: a replacement at the same nonce goes out, and the stale refusal is never answered for it", () => {
    const sut = new RetryBackOff(loadConfig({}));
    const refused = signed(7n);
    const replacement = { ...refused, id: "tx-7-2", attempt: 2, hash: `0x${"ab".repeat(32)}` };
    sut.refusedToWriter(refused, { accepted: false, refusal: "max fee per gas less than block base fee" });

    expect(sut.mayRetry(refused)).toBe(false);
    expect(sut.mayRetry(replacement)).toBe(true);
    expect(sut.takeUnanswered(replacement)).toBeNull();
    expect(sut.mayRetry(refused)).toBe(true);
  });

  it("keeps the bytes the node refused to the writer from going out again until the watcher has answered the refusal, which it takes once", () => {
    const sut = new RetryBackOff(loadConfig({}));
    const refused = signed(7n);
    sut.refusedToWriter(refused, { accepted: false, refusal: "replacement transaction underpriced" });

    expect(sut.mayRetry(refused)).toBe(false);
    expect(sut.mayRetry(signed(8n))).toBe(true);
    expect(sut.takeUnanswered(refused)).toEqual({ accepted: false, refusal: "replacement transaction underpriced" });
    // While the answer (a replacement being signed, say) is under way, a flush or another pass that
    // read the nonce unsent must not send the refused bytes beside it.
    expect(sut.mayRetry(refused)).toBe(false);
    expect(sut.takeUnanswered(refused)).toBeNull();
    sut.answered(refused);
    expect(sut.mayRetry(refused)).toBe(true);
    expect(sut.takeUnanswered(refused)).toBeNull();
  });

  it("holds every nonce of a refused signer until its clock allows, and lets them go at once when cleared", () => {
    const sut = new RetryBackOff(loadConfig({ RECEIPT_POLL_MS: "60000" }));
    sut.refused(SIGNER);

    expect(sut.mayRetry(signed(7n))).toBe(false);
    expect(sut.mayRetry(signed(9n))).toBe(false);
    expect(sut.mayRetry({ ...signed(7n), signer: "0x0000000000000000000000000000000000000001" })).toBe(true);
    sut.clear(SIGNER);
    expect(sut.mayRetry(signed(7n))).toBe(true);
  });
});

describe("backOffMs", () => {
  it("waits the poll interval after the first refusal, doubles after each next one, and stops growing at the maximum", () => {
    expect([1, 2, 3, 4].map((failures) => backOffMs(failures, 500))).toEqual([500, 1_000, 2_000, 4_000]);
    expect(backOffMs(20, 500)).toBe(MAX_BACK_OFF_MS);
  });
});
