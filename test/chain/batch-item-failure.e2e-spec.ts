import { id, Wallet } from "ethers";
import { afterEach, describe, expect, it } from "vitest";

import { encodeBatch } from "../../src/registry";

import {
  actionPromises,
  allSettled,
  CALLBACK_URL,
  actionRows,
  callbackRows,
  chainTransactions,
  eventIndexOf,
  mints,
  settled,
  ticketView,
  tokenIds,
  txPromises,
  uid,
  waitForLedgerStatus,
  WALLET,
} from "../support/chain-e2e";
import { eventually, HARDHAT_KEYS, pauseMining, resumeMining } from "../support/test-chain";
import { useChainApp } from "../support/chain-app";

/**
 * One item of a batch that the registry refuses is skipped and reported on its own: its siblings in
 * the same transaction, before and after it, are applied and confirmed.
 */

// A quick sweep picks up actions put back in line once the registry is unpaused.
const ELSEWHERE = "0x1111111111111111111111111111111111111111";
const chainApp = useChainApp({ env: { SWEEP_INTERVAL_MS: "500", SWEEP_MIN_AGE_MS: "0" } });

afterEach(async () => {
  await resumeMining(chainApp.chain);
  if (await chainApp.chain.registry.paused()) await (await chainApp.chain.registry.unpause()).wait();
});

describe("a batch with an item the registry refuses", () => {
  it("ends that item in error onchain_ticket_claimed and confirms the others, all in one transaction", async () => {
    const eventId = uid("event");
    const [first, refused, last] = [uid("t"), uid("t"), uid("t")];
    const prepared = actionPromises(
      await chainApp.api.post("/stream", [
        { action: "newEvent", data: { eventId, currency: "EUR", callbackUrl: CALLBACK_URL } },
        ...[first, refused, last].flatMap((ticketId) => [
          { action: "soldTicket", data: { eventId, ticketId, price: "10", orderTime: 1_750_000_000 } },
          { action: "scannedTicket", data: { ticketId } },
        ]),
      ]),
    );
    expect((await allSettled(chainApp.api, prepared)).map((status) => status.status)).toEqual(Array(7).fill("confirmed"));
    const tokens = await tokenIds(chainApp.testApp, [first, refused, last]);
    // Another operator of the registry (its admin, given the role) claims one of the tickets first.
    await (await chainApp.chain.registry.grantRole(id("OPERATOR_ROLE"), new Wallet(HARDHAT_KEYS[0]).address)).wait();
    await (await chainApp.chain.registry.execute(encodeBatch([{ action: "claimed", tokenId: tokens.get(refused)!, to: ELSEWHERE }]))).wait();

    const transactionsBefore = (await chainTransactions(chainApp.testApp)).length;
    const promises = actionPromises(
      await chainApp.api.post(
        "/stream",
        [first, refused, last].map((ticketId) => ({ action: "claimedTicket", data: { ticketId, to: WALLET } })),
      ),
    );
    const statuses = await allSettled(chainApp.api, promises);

    const refusedClaim = statuses[1];
    expect(refusedClaim).toMatchObject({ action: "claimed", ticketId: refused, status: "error", error: { code: "onchain_ticket_claimed" } });
    expect(refusedClaim.error.message.length).toBeGreaterThan(0);
    expect([statuses[0], statuses[2]].map((status) => [status.status, status.error])).toEqual([
      ["confirmed", null],
      ["confirmed", null],
    ]);

    // Three actions, one transaction: the failed item is in it too.
    const hashes = new Set(statuses.map((status) => status.txHash));
    expect(hashes.size).toBe(1);
    const [txHash] = hashes;
    expect(txHash).toMatch(/^0x[0-9a-f]{64}$/);
    const transactions = (await chainTransactions(chainApp.testApp)).slice(transactionsBefore);
    expect(transactions.map((tx) => [tx.tx_hash, tx.status, tx.item_count])).toEqual([[txHash, "confirmed", 3]]);
    const receipt = await chainApp.chain.provider.getTransactionReceipt(txHash);
    expect(receipt?.status).toBe(1);

    // The registry logged the refusal of batch item 1 and applied everything else.
    const failures = await chainApp.chain.registry.queryFilter(chainApp.chain.registry.filters.ItemFailed(), receipt!.blockNumber, receipt!.blockNumber);
    expect(failures.map((log) => [log.transactionHash, log.args.index, log.args.reason])).toEqual([[txHash, 1n, 8n]]);
    expect(await chainApp.chain.registry.ownerOf(tokens.get(first)!)).toBe(WALLET);
    expect(await chainApp.chain.registry.ownerOf(tokens.get(last)!)).toBe(WALLET);
    expect(await ticketView(chainApp.chain, tokens.get(refused)!)).toMatchObject({ checkedIn: true, claimed: true, holder: ELSEWHERE });

    // The ticket reads as the chain holds it: claimed, to the wallet the other operator chose.
    expect((await chainApp.api.get(`/api/v1/tickets/${refused}`)).body).toMatchObject({ claimed: true, claimedTo: ELSEWHERE, chain: { claimed: false } });

    // The failure has its callback like every finalized action, with the error.
    const callbacks = await callbackRows(chainApp.testApp, promises);
    expect(callbacks).toHaveLength(3);
    const failed = callbacks.find((row) => row.action_id === promises[1])!.payload;
    expect(failed).toMatchObject({
      action: "claimed",
      ticketId: refused,
      status: "error",
      txHash,
      error: { code: "onchain_ticket_claimed", message: refusedClaim.error.message },
    });
  });
});

describe("a batch the registry reverts as a whole", () => {
  it("puts its actions back in line, and they confirm once in a later transaction", async () => {
    const eventId = uid("event");
    const [registered] = actionPromises(
      await chainApp.api.post("/stream", [{ action: "newEvent", data: { eventId, currency: "EUR", callbackUrl: CALLBACK_URL } }]),
    );
    expect((await settled(chainApp.api, registered)).status).toBe("confirmed");

    await pauseMining(chainApp.chain);
    const ticketIds = [uid("t"), uid("t"), uid("t")];
    const promises = txPromises(
      await chainApp.api.post(
        "/api/v1/sold",
        ticketIds.map((ticketId) => ({ eventId, ticketId, price: "4", orderTime: 1_750_000_000 })),
      ),
    );
    const reverted = await eventually(
      async () => (await chainTransactions(chainApp.testApp)).find((tx) => tx.status === "broadcast" && tx.item_count === 3),
      20_000,
      "the sales to be broadcast",
    );

    // The admin pauses the registry in the same block, ahead of the writer's transaction (a higher tip).
    await chainApp.chain.registry.pause({ maxPriorityFeePerGas: 50_000_000_000n, maxFeePerGas: 100_000_000_000n });
    await chainApp.chain.send("evm_mine");
    expect(await chainApp.chain.registry.paused()).toBe(true);
    expect((await chainApp.chain.provider.getTransactionReceipt(reverted.tx_hash))?.status).toBe(0);

    // Reverted: nothing applied, the actions wait again (no error yet, no callback), and the paused registry holds them.
    await waitForLedgerStatus(chainApp.testApp, promises, "waiting_broadcast", 20_000);
    expect((await chainTransactions(chainApp.testApp)).find((tx) => tx.id === reverted.id)).toMatchObject({ status: "reverted" });
    expect((await actionRows(chainApp.testApp, promises)).map((row) => [row.status, row.tx_hash, row.error_code])).toEqual(
      Array(3).fill(["waiting_broadcast", null, null]),
    );
    expect(await callbackRows(chainApp.testApp, promises)).toHaveLength(0);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect((await actionRows(chainApp.testApp, promises)).map((row) => row.status)).toEqual(Array(3).fill("waiting_broadcast"));

    await resumeMining(chainApp.chain);
    await (await chainApp.chain.registry.unpause()).wait();
    await waitForLedgerStatus(chainApp.testApp, promises, "confirmed", 30_000);

    const rows = await actionRows(chainApp.testApp, promises);
    const [resent] = new Set(rows.map((row) => row.tx_hash));
    expect(new Set(rows.map((row) => row.tx_hash)).size).toBe(1);
    expect(resent).not.toBe(reverted.tx_hash);
    const again = (await chainTransactions(chainApp.testApp)).find((tx) => tx.tx_hash === resent);
    expect(again).toMatchObject({ status: "confirmed", item_count: 3, attempt: 1 });
    expect(BigInt(again.nonce)).toBeGreaterThan(BigInt(reverted.nonce));

    const tokens = await tokenIds(chainApp.testApp, ticketIds);
    const minted = (await mints(chainApp.chain)).filter((mint) => [...tokens.values()].includes(mint.tokenId));
    expect(minted.map((mint) => mint.txHash)).toEqual(Array(3).fill(resent));
    expect((await chainApp.chain.registry.eventRecord(await eventIndexOf(chainApp.testApp, eventId))).ticketsSold).toBe(3n);
    const callbacks = await callbackRows(chainApp.testApp, promises);
    expect(callbacks.map((row) => [row.payload.status, row.payload.txHash])).toEqual(Array(3).fill(["confirmed", resent]));
  });
});
