import { afterEach, describe, expect, it } from "vitest";

import {
  actionRows,
  CALLBACK_URL,
  chainTransactions,
  eventIndexOf,
  mints,
  settled,
  tokenIds,
  txPromises,
  uid,
  waitForLedgerStatus,
} from "../support/chain-e2e";
import { eventually, pauseMining, resumeMining, setNextBlockBaseFee } from "../support/test-chain";
import { useChainApp } from "../support/chain-app";

/**
 * A transaction priced below the market stays in the mempool: after STUCK_TX_AFTER_MS the receipt
 * watcher signs the same call at the same nonce with fees raised by at least 10%, the replacement
 * is mined, and the actions confirm once, with its hash.
 */

const STUCK_AFTER_MS = 1_500;

const chainApp = useChainApp({ node: "own", env: { STUCK_TX_AFTER_MS: String(STUCK_AFTER_MS), FEE_BUMP_PERCENT: "15" } });

afterEach(async () => {
  await resumeMining(chainApp.chain);
});

describe("a transaction stuck below the base fee", () => {
  it("is replaced at the same nonce with higher fees; the actions confirm with the replacement, once", async () => {
    const eventId = uid("event");
    const created = await chainApp.api.post("/api/v1/events", { eventId, ticketeerId: chainApp.ticketeerId, currency: "EUR", callbackUrl: CALLBACK_URL });
    expect((await settled(chainApp.api, created.body.txPromise)).status).toBe("confirmed");

    // Blocks only on request from now on.
    await pauseMining(chainApp.chain);

    const ticketIds = Array.from({ length: 5 }, () => uid("t"));
    const promises = txPromises(
      await chainApp.api.post(
        "/api/v1/sold",
        ticketIds.map((ticketId) => ({ eventId, ticketId, price: "8", orderTime: 1_750_000_000 })),
      ),
    );
    const first = await eventually(
      async () => (await chainTransactions(chainApp.testApp)).find((tx) => tx.status === "broadcast" && tx.item_count === 5),
      20_000,
      "the sales to be broadcast",
    );
    // Then the market jumps: the next block far too expensive for fees priced on the latest one. Only
    // once the node holds the transaction: Anvil checks a transaction's max fee against the pending
    // block's base fee when it is sent, and refuses one below it ("max fee per gas less than block
    // base fee") where Hardhat, geth and bor keep it in the pool to wait.
    // (Within STUCK_AFTER_MS of the broadcast: a replacement priced before the jump would be refused in turn.)
    const latest = await chainApp.chain.provider.getBlock("latest");
    const expensive = latest!.baseFeePerGas! * 1_000n + 100_000_000_000n;
    await setNextBlockBaseFee(chainApp.chain, expensive);
    expect(BigInt(first.max_fee_per_gas)).toBeLessThan(expensive);

    // A block without it: it cannot pay the base fee (Anvil also drops it from its pool then; Hardhat keeps it).
    await chainApp.chain.send("evm_mine");
    const block = await chainApp.chain.provider.getBlock("latest");
    expect(block!.baseFeePerGas).toBe(expensive);
    expect(block!.transactions).not.toContain(first.tx_hash);
    expect(await chainApp.chain.provider.getTransactionReceipt(first.tx_hash)).toBeNull();
    expect((await actionRows(chainApp.testApp, promises)).map((row) => [row.status, row.tx_hash])).toEqual(Array(5).fill(["pending", first.tx_hash]));

    const replacement = await eventually(
      async () => (await chainTransactions(chainApp.testApp)).find((tx) => tx.nonce === first.nonce && tx.attempt === 2 && tx.status === "broadcast"),
      STUCK_AFTER_MS + 10_000,
      "a replacement of the stuck transaction",
    );
    expect(replacement.tx_hash).not.toBe(first.tx_hash);
    expect(replacement.raw_tx).not.toBe(first.raw_tx);
    expect(replacement.item_count).toBe(5);
    expect(BigInt(replacement.max_fee_per_gas) * 100n).toBeGreaterThanOrEqual(BigInt(first.max_fee_per_gas) * 110n);
    expect(BigInt(replacement.max_priority_fee_per_gas) * 100n).toBeGreaterThanOrEqual(BigInt(first.max_priority_fee_per_gas) * 110n);
    // The node holds the replacement in the stuck one's place: same sender, same nonce, same call.
    const pending = await chainApp.chain.provider.getTransaction(replacement.tx_hash);
    const original = await chainApp.chain.provider.getTransaction(first.tx_hash);
    expect(pending).not.toBeNull();
    expect(original).toBeNull();
    expect(BigInt(pending!.nonce)).toBe(BigInt(first.nonce));
    expect(pending!.to).toBe(chainApp.chain.registryAddress);

    await resumeMining(chainApp.chain);
    await chainApp.chain.send("evm_mine");
    await waitForLedgerStatus(chainApp.testApp, promises, "confirmed", 30_000);

    const rows = await actionRows(chainApp.testApp, promises);
    expect(rows.map((row) => row.tx_hash)).toEqual(Array(5).fill(replacement.tx_hash));
    expect((await chainApp.api.get(`/api/v1/actions/${promises[0]}`)).body).toMatchObject({ status: "confirmed", txHash: replacement.tx_hash });
    const attempts = (await chainTransactions(chainApp.testApp)).filter((tx) => tx.nonce === first.nonce);
    expect(attempts.map((tx) => [tx.attempt, tx.tx_hash, tx.status])).toEqual([
      [1, first.tx_hash, "replaced"],
      [2, replacement.tx_hash, "confirmed"],
    ]);
    expect((await chainApp.chain.provider.getTransactionReceipt(replacement.tx_hash))?.status).toBe(1);
    expect(await chainApp.chain.provider.getTransactionReceipt(first.tx_hash)).toBeNull();

    // Applied once: one mint per ticket, all in the replacement.
    const eventIndex = await eventIndexOf(chainApp.testApp, eventId);
    const minted = (await mints(chainApp.chain)).filter((mint) => mint.tokenId >> 64n === eventIndex);
    expect(minted.map((mint) => mint.tokenId).sort()).toEqual([...(await tokenIds(chainApp.testApp, ticketIds)).values()].sort());
    expect(new Set(minted.map((mint) => mint.txHash))).toEqual(new Set([replacement.tx_hash]));
    expect((await chainApp.chain.registry.eventRecord(eventIndex)).ticketsSold).toBe(5n);
  });
});
