import type { JsonRpcProvider } from "ethers";
import { describe, expect, it } from "vitest";

import type { BroadcastObserver } from "./broadcast";
import type { BroadcastOrder } from "./broadcast-order";
import type { BroadcastStore } from "./broadcast.store";
import { TransactionSender } from "./transaction-sender";

const A = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8";
const B = "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC";

/** The ledger's sent nonces of two signers, 10M gas each, and a node that has mined `mined` of each signer's. */
function sender(mined: Record<string, number>) {
  const row = (signer: string, nonce: bigint) => ({ signer, nonce, gas: 10_000_000n });
  const store = { gasSent: async () => [row(A, 4n), row(A, 5n), row(A, 6n), row(B, 0n), row(B, 1n)] } as unknown as BroadcastStore;
  const provider = { getTransactionCount: async (signer: string) => mined[signer] } as unknown as JsonRpcProvider;
  return { sut: new TransactionSender(store, {} as BroadcastOrder, {} as BroadcastObserver), provider };
}

describe("TransactionSender.poolHasRoom", () => {
  it("counts every signer's sent and unmined gas against the one block, by each signer's own mined count", async () => {
    // A: nonces 5 and 6 unmined; B: 0 and 1 unmined: 40M in the pool.
    const { sut, provider } = sender({ [A]: 5, [B]: 0 });
    expect(await sut.poolHasRoom(provider, 40_000_000n)).toBe(false);
    expect(await sut.poolHasRoom(provider, 45_000_000n)).toBe(true);
  });

  it("leaves out what the node has mined", async () => {
    // A: all mined; B: nonce 1 unmined: 10M.
    const { sut, provider } = sender({ [A]: 7, [B]: 1 });
    expect(await sut.poolHasRoom(provider, 15_000_000n)).toBe(true);
    expect(await sut.poolHasRoom(provider, 10_000_000n)).toBe(false);
  });
});
