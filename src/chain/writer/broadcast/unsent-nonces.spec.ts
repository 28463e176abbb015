import type { JsonRpcProvider } from "ethers";
import { describe, expect, it } from "vitest";

import { loadConfig } from "../../../config/app-config";
import type { OpenTransaction } from "../signed-transaction";
import type { BroadcastResult } from "./broadcast";
import type { BroadcastStore } from "./broadcast.store";
import { RetryBackOff } from "./retry-back-off";
import type { TransactionSender } from "./transaction-sender";
import { UnsentNonces } from "./unsent-nonces";

const SIGNER = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8";
const provider = {} as JsonRpcProvider;
const unsent = (nonce: bigint) =>
  ({ id: `tx-${nonce}`, signer: SIGNER, nonce, hash: `0x${nonce.toString(16).padStart(64, "0")}`, status: "signed" }) as OpenTransaction;

function fixture(answers: Record<string, BroadcastResult>, inOrder = true) {
  const sent: bigint[] = [];
  const store = { unsentTransactions: async () => [unsent(3n), unsent(4n), unsent(5n)] } as unknown as BroadcastStore;
  const transactions = {
    inOrder: async () => inOrder,
    send: async (_: JsonRpcProvider, tx: OpenTransaction) => (sent.push(tx.nonce), answers[tx.id] ?? { accepted: true, refusal: null }),
  } as unknown as TransactionSender;
  const backOff = new RetryBackOff(loadConfig({}));
  return { sut: new UnsentNonces(store, transactions, backOff), sent, backOff };
}

describe("UnsentNonces.sendAll", () => {
  it("sends every unsent nonce in order", async () => {
    const { sut, sent } = fixture({});
    expect(await sut.sendAll(provider, SIGNER)).toBe(true);
    expect(sent).toEqual([3n, 4n, 5n]);
  });

  it("stops at the first refusal, which waits for the watcher's answer, and sends nothing after it", async () => {
    const refusal = { accepted: false, refusal: "txpool is full" } as const;
    const { sut, sent, backOff } = fixture({ "tx-4": refusal });
    expect(await sut.sendAll(provider, SIGNER)).toBe(false);
    expect(sent).toEqual([3n, 4n]);
    expect(backOff.mayRetry(unsent(4n))).toBe(false);
    expect(backOff.takeUnanswered(unsent(4n))).toEqual(refusal);
  });

  it("sends nothing while an earlier nonce is neither mined nor held by the node", async () => {
    const { sut, sent } = fixture({}, false);
    expect(await sut.sendAll(provider, SIGNER)).toBe(false);
    expect(sent).toEqual([]);
  });
});
