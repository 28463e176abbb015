import type { JsonRpcProvider } from "ethers";
import { describe, expect, it } from "vitest";

import type { ChainSigner } from "../../signers";
import type { TransactionSender } from "../broadcast/transaction-sender";
import type { FinalAttempt, SignedTransaction } from "../signed-transaction";
import { LostTransactions } from "./lost-transactions";
import type { ReceiptsStore } from "./receipts.store";

const SIGNER = { address: "0x00000000000000000000000000000000000000a1" } as ChainSigner;

function attempt(nonce: bigint, raw: string | null): FinalAttempt {
  return {
    id: `tx-${nonce}`,
    signer: SIGNER.address,
    chainId: 31337n,
    nonce,
    attempt: 1,
    hash: `0x${nonce.toString(16).padStart(64, "0")}`,
    raw,
    gasLimit: 1n,
    maxFeePerGas: 1n,
    maxPriorityFeePerGas: 1n,
    itemCount: 1,
    status: "confirmed",
    broadcastAt: null,
    createdAt: new Date(0),
    minedIn: null,
  };
}

/** A node that counts `chainCount` mined transactions, a ledger holding `final`, and what gets sent. */
function lostAfter(chainCount: number, final: FinalAttempt[]) {
  const sent: SignedTransaction[] = [];
  const store = { finalAttempts: async (_signer: string, from: bigint, to: bigint) => final.filter(({ nonce }) => nonce >= from && nonce < to) };
  const sender = {
    send: async (_provider: JsonRpcProvider, tx: SignedTransaction) => {
      sent.push(tx);
      return { accepted: true };
    },
  };
  const provider = { getTransactionCount: async () => chainCount } as unknown as JsonRpcProvider;
  const sut = new LostTransactions(store as unknown as ReceiptsStore, sender as unknown as TransactionSender);
  return { sent, resend: () => sut.resend(provider, SIGNER, 5n) };
}

describe("LostTransactions", () => {
  it("sends the lost nonces' bytes again, in order, on the second pass that sees them lost", async () => {
    const { sent, resend } = lostAfter(2, [attempt(2n, "0x02"), attempt(3n, "0x03"), attempt(4n, "0x04")]);
    await resend();
    expect(sent).toEqual([]);
    await resend();
    expect(sent.map((tx) => tx.raw)).toEqual(["0x02", "0x03", "0x04"]);
  });

  it("stops before the first nonce whose bytes retention has cleared: nothing after it could be mined", async () => {
    const { sent, resend } = lostAfter(2, [attempt(2n, "0x02"), attempt(3n, null), attempt(4n, "0x04")]);
    await resend();
    await resend();
    expect(sent.map((tx) => tx.nonce)).toEqual([2n]);
  });
});
