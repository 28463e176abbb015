import { Wallet } from "ethers";
import { describe, expect, it } from "vitest";

import { allSettled, CALLBACK_URL, chainTransactions, eventIndexOf, mints, settled, sqlOf, tokenIds, txPromises, uid } from "../support/chain-e2e";
import { useChainApp } from "../support/chain-app";

/**
 * A node that comes back without blocks the ledger had already confirmed (restarted from an older
 * state file, or a reorg deeper than CONFIRMATIONS): the signer's later nonces would wait behind the
 * gap for good. The watcher sends the lost transactions' bytes again, in order, and everything after
 * them goes through; the actions confirmed before stay as reported.
 */

const chainApp = useChainApp({ node: "own", env: { CONFIRMATIONS: "1" } });

async function sell(eventId: string, count: number): Promise<{ promises: string[]; ticketIds: string[] }> {
  const sales = Array.from({ length: count }, () => ({ eventId, ticketId: uid("t"), price: "8", orderTime: 1_750_000_000 }));
  return { promises: txPromises(await chainApp.api.post("/api/v1/sold", sales)), ticketIds: sales.map((sale) => sale.ticketId) };
}

describe("a node that lost confirmed blocks", () => {
  it("gets the lost transactions again, in order, and the next sales confirm behind them", async () => {
    const eventId = uid("event");
    const created = await chainApp.api.post("/api/v1/events", { eventId, ticketeerId: chainApp.ticketeerId, currency: "EUR", callbackUrl: CALLBACK_URL });
    expect((await settled(chainApp.api, created.body.txPromise)).status).toBe("confirmed");
    const signer = new Wallet(chainApp.chain.signerKeys[0]).address;

    const snapshot = await chainApp.chain.send("evm_snapshot");
    const first = await sell(eventId, 3);
    const confirmed = await allSettled(chainApp.api, first.promises, 30_000);
    expect(confirmed.map((result) => result.status)).toEqual(Array(3).fill("confirmed"));
    const countBefore = await chainApp.chain.provider.getTransactionCount(signer, "latest");

    // The node loses the blocks: the ledger has them confirmed, the chain no longer counts them.
    await chainApp.chain.send("evm_revert", [snapshot]);
    expect(await chainApp.chain.provider.getTransactionCount(signer, "latest")).toBeLessThan(countBefore);
    expect(await chainApp.chain.provider.getTransactionReceipt(confirmed[0].txHash)).toBeNull();

    const second = await sell(eventId, 2);
    const results = await allSettled(chainApp.api, second.promises, 60_000);
    expect(results.map((result) => result.status)).toEqual(Array(2).fill("confirmed"));

    // The lost batch is on chain again, with the same hash, and every sale minted once.
    expect((await chainApp.chain.provider.getTransactionReceipt(confirmed[0].txHash))?.status).toBe(1);
    const eventIndex = await eventIndexOf(chainApp.testApp, eventId);
    const minted = (await mints(chainApp.chain)).filter((mint) => mint.tokenId >> 64n === eventIndex);
    const expected = [...(await tokenIds(chainApp.testApp, [...first.ticketIds, ...second.ticketIds])).values()];
    expect(minted.map((mint) => mint.tokenId).sort()).toEqual(expected.sort());
    expect((await chainApp.chain.registry.eventRecord(eventIndex)).ticketsSold).toBe(5n);
    // The first sales stayed as they were reported.
    for (const promise of first.promises)
      expect((await chainApp.api.get(`/api/v1/actions/${promise}`)).body).toMatchObject({ status: "confirmed", txHash: confirmed[0].txHash });

    const [row] = await sqlOf(chainApp.testApp)<{ next_nonce: string }>(`SELECT next_nonce FROM chain_signers WHERE address = $1`, [signer]);
    expect(BigInt(row.next_nonce)).toBe(BigInt(await chainApp.chain.provider.getTransactionCount(signer, "latest")));
    expect((await chainTransactions(chainApp.testApp)).filter((tx) => ["signed", "broadcast", "mined"].includes(tx.status))).toEqual([]);
  });
});
