import { afterEach, describe, expect, it } from "vitest";

import {
  actionRows,
  CALLBACK_URL,
  callbackRows,
  chainTransactions,
  eventIndexOf,
  FINAL_STATUSES,
  mints,
  tokenIds,
  txPromises,
  uid,
} from "../support/chain-e2e";
import { eventually, onAnvil, pauseMining, resumeMining } from "../support/test-chain";
import { useChainApp } from "../support/chain-app";

/**
 * With CONFIRMATIONS=3 a mined transaction is not final until two more blocks follow it. A reorg
 * (evm_revert to a snapshot taken before it was mined) takes its receipt away: the watcher sends the
 * same signed bytes again, and the actions confirm once they are deep enough, applied exactly once.
 */

const STUCK_AFTER_MS = 500;

// A reorg comes later than STUCK_TX_AFTER_MS after the broadcast: a transaction that was mined is not stuck.
const chainApp = useChainApp({ node: "own", env: { CONFIRMATIONS: "3", STUCK_TX_AFTER_MS: String(STUCK_AFTER_MS) } });

afterEach(async () => {
  await resumeMining(chainApp.chain);
});

/** Mines an empty block every 150 ms until `promises` are final in the ledger. */
async function mineUntilFinal(promises: string[], timeoutMs = 30_000): Promise<void> {
  await eventually(
    async () => {
      const rows = await actionRows(chainApp.testApp, promises);
      if (rows.every((row) => FINAL_STATUSES.includes(row.status))) return true;
      await chainApp.chain.send("evm_mine");
      await new Promise((resolve) => setTimeout(resolve, 50));
      return undefined;
    },
    timeoutMs,
    `${promises.length} actions to be final`,
  );
}

describe("a reorg before the confirmation depth", () => {
  it("re-sends the same bytes when the receipt vanishes and confirms the actions once, at depth", async () => {
    // On Anvil blocks only on request throughout (mineUntilFinal mines them): a block every 2 s would
    // leave the transaction unmined past STUCK_AFTER_MS (a replacement), or bury it 3 deep before the checks.
    if (onAnvil()) await pauseMining(chainApp.chain);
    const eventId = uid("event");
    const created = await chainApp.api.post("/api/v1/events", { eventId, ticketeerId: chainApp.ticketeerId, currency: "EUR", callbackUrl: CALLBACK_URL });
    await mineUntilFinal([created.body.txPromise]);
    expect((await chainApp.api.get(`/api/v1/actions/${created.body.txPromise}`)).body.status).toBe("confirmed");

    const snapshot = await chainApp.chain.send("evm_snapshot");
    const headAtSnapshot = await chainApp.chain.provider.getBlockNumber();

    const ticketIds = Array.from({ length: 6 }, () => uid("t"));
    const promises = txPromises(
      await chainApp.api.post(
        "/api/v1/sold",
        ticketIds.map((ticketId) => ({ eventId, ticketId, price: "2.5", orderTime: 1_750_000_000 })),
      ),
    );

    // Mined (automine) but one confirmation is not three: the actions stay pending.
    const mined = await eventually(
      async () => {
        const sales = (await chainTransactions(chainApp.testApp)).find((tx) => tx.item_count === 6);
        // On Anvil, the block that mines it (Hardhat's automine).
        if (onAnvil() && sales?.status === "broadcast") await chainApp.chain.send("evm_mine");
        return sales?.status === "mined" ? sales : undefined;
      },
      20_000,
      "the sales' transaction to be mined",
    );
    const firstReceipt = await chainApp.chain.provider.getTransactionReceipt(mined.tx_hash);
    expect(firstReceipt?.blockNumber).toBe(headAtSnapshot + 1);
    expect(Number(mined.block_number)).toBe(headAtSnapshot + 1);
    expect(mined.block_hash).toBe(firstReceipt!.blockHash);
    await new Promise((resolve) => setTimeout(resolve, STUCK_AFTER_MS + 500));
    expect((await actionRows(chainApp.testApp, promises)).map((row) => [row.status, row.tx_hash])).toEqual(Array(6).fill(["pending", mined.tx_hash]));
    expect((await chainApp.api.get(`/api/v1/actions/${promises[0]}`)).body).toMatchObject({ status: "pending", txHash: mined.tx_hash });

    // The reorg: the block carrying it is gone, and so is the transaction. (Blocks only on request
    // meanwhile, so that a quick re-send cannot be mined before these checks.)
    await pauseMining(chainApp.chain);
    expect(await chainApp.chain.send("evm_revert", [snapshot])).toBe(true);
    expect(await chainApp.chain.provider.getBlockNumber()).toBe(headAtSnapshot);
    expect(await chainApp.chain.provider.getBlock(firstReceipt!.blockHash)).toBeNull();
    expect(await chainApp.chain.provider.getTransactionReceipt(mined.tx_hash)).toBeNull();
    // Later blocks than the reverted one (a later timestamp: other hashes), empty or carrying the
    // re-sent transaction, whichever comes first.
    await chainApp.chain.send("evm_setNextBlockTimestamp", [Math.floor(Date.now() / 1000) + 60]);
    for (let block = 0; block < 2; block++) await chainApp.chain.send("evm_mine");
    if (!onAnvil()) await resumeMining(chainApp.chain);

    await mineUntilFinal(promises);
    const rows = await actionRows(chainApp.testApp, promises);
    expect(rows.map((row) => [row.status, row.tx_hash])).toEqual(Array(6).fill(["confirmed", mined.tx_hash]));

    // The same bytes, mined again in a later block, confirmed at depth.
    const receipt = await chainApp.chain.provider.getTransactionReceipt(mined.tx_hash);
    expect(receipt?.status).toBe(1);
    expect(receipt!.blockNumber).toBeGreaterThan(headAtSnapshot);
    expect(receipt!.blockHash).not.toBe(firstReceipt!.blockHash);
    expect((await chainApp.chain.provider.getBlockNumber()) - receipt!.blockNumber + 1).toBeGreaterThanOrEqual(3);
    const attempts = (await chainTransactions(chainApp.testApp)).filter((tx) => tx.nonce === mined.nonce);
    expect(attempts.map((tx) => [tx.attempt, tx.tx_hash, tx.status, Number(tx.block_number), tx.block_hash])).toEqual([
      [1, mined.tx_hash, "confirmed", receipt!.blockNumber, receipt!.blockHash],
    ]);
    expect(rows.map((row) => Number((row as { block_number?: string }).block_number))).toEqual(Array(6).fill(receipt!.blockNumber));

    // Applied once on the canonical chain, and finalized once in the ledger.
    const eventIndex = await eventIndexOf(chainApp.testApp, eventId);
    const minted = (await mints(chainApp.chain)).filter((mint) => mint.tokenId >> 64n === eventIndex);
    expect(minted.map((mint) => mint.tokenId).sort()).toEqual([...(await tokenIds(chainApp.testApp, ticketIds)).values()].sort());
    expect((await chainApp.chain.registry.eventRecord(eventIndex)).ticketsSold).toBe(6n);
    const callbacks = await callbackRows(chainApp.testApp, promises);
    expect(callbacks).toHaveLength(6);
    expect(callbacks.map((row) => row.payload.blockNumber)).toEqual(Array(6).fill(receipt!.blockNumber));
  });
});
