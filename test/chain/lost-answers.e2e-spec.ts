import { keccak256 } from "ethers";
import { afterEach, describe, expect, it } from "vitest";

import {
  actionRows,
  chainTransactions,
  eventIndexOf,
  mints,
  registeredEvent,
  sqlOf,
  tokenIds,
  txPromises,
  uid,
  waitForLedgerStatus,
} from "../support/chain-e2e";

import { eventually } from "../support/test-chain";
import { useChainApp } from "../support/chain-app";

/**
 * JSON-RPC answers lost or late between the writer and the node (a proxy in front of it drops or
 * holds them): a transaction the node got while its sender saw an error is not sent again at another
 * nonce, late answers keep the nonces in order, and receipts that cannot be read only delay the
 * confirmations. Every action is applied once and the signer's nonces have no gap.
 */

const lifts: (() => void)[] = [];

// STUCK_TX_AFTER_MS out of the way: nothing here is underpriced, and a replacement would hide a re-send.
const chainApp = useChainApp({
  node: "own",
  productionNode: true,
  env: { STUCK_TX_AFTER_MS: "60000", SIGNER_STUCK_AFTER_MS: "60000" },
});

afterEach(() => {
  for (const lift of lifts.splice(0)) lift();
});

async function sell(eventId: string, ticketIds: string[]): Promise<string[]> {
  return txPromises(
    await chainApp.api.post(
      "/api/v1/sold",
      ticketIds.map((ticketId) => ({ eventId, ticketId, price: "8", orderTime: 1_750_000_000 })),
    ),
  );
}

/** The writer's transactions carrying these actions, every attempt. */
async function transactionsOf(promises: string[]): Promise<any[]> {
  return sqlOf(chainApp.testApp)(
    `SELECT * FROM chain_transactions WHERE (signer, nonce) IN (SELECT tx_signer, tx_nonce FROM chain_actions WHERE id = ANY($1::uuid[])) ORDER BY nonce, attempt`,
    [promises],
  );
}

/** Each ticket minted once, in the transaction its action confirmed with. */
async function expectMintedOnce(eventId: string, ticketIds: string[], promises: string[]): Promise<void> {
  const rows = await actionRows(chainApp.testApp, promises);
  const hashByToken = new Map<bigint, string | null>();
  const tokens = await tokenIds(chainApp.testApp, ticketIds);
  ticketIds.forEach((ticketId, index) => hashByToken.set(tokens.get(ticketId) as bigint, rows[index].tx_hash));
  const eventIndex = await eventIndexOf(chainApp.testApp, eventId);
  const minted = (await mints(chainApp.chain)).filter((mint) => mint.tokenId >> 64n === eventIndex);
  expect(minted.map((mint) => mint.tokenId).sort()).toEqual([...tokens.values()].sort());
  for (const mint of minted) expect(mint.txHash).toBe(hashByToken.get(mint.tokenId));
  expect((await chainApp.chain.registry.eventRecord(eventIndex)).ticketsSold).toBe(BigInt(ticketIds.length));
}

/** No nonce gap and nothing left behind: the chain's nonce is the ledger's next one, and the node holds nothing pending. */
async function expectNoNonceGap(): Promise<void> {
  const [signer] = await sqlOf(chainApp.testApp)<{ address: string; next_nonce: string }>(`SELECT address, next_nonce FROM chain_signers`);
  expect(await chainApp.chain.provider.getTransactionCount(signer.address, "latest")).toBe(Number(signer.next_nonce));
  expect(await chainApp.chain.provider.getTransactionCount(signer.address, "pending")).toBe(Number(signer.next_nonce));
  const open = (await chainTransactions(chainApp.testApp)).filter((tx) => !["confirmed", "replaced"].includes(tx.status));
  expect(open).toEqual([]);
}

describe("lost and late JSON-RPC answers", () => {
  it("an eth_sendRawTransaction whose answer is lost after the node got it: confirmed once, at its nonce, no gap", async () => {
    const eventId = await registeredEvent(chainApp.api, chainApp.ticketeerId);
    const sentBefore = chainApp.productionNode.sent.length;
    const nonceBefore = Number((await sqlOf(chainApp.testApp)(`SELECT next_nonce FROM chain_signers`))[0].next_nonce);

    lifts.push(chainApp.productionNode.dropCalls("eth_sendRawTransaction", { afterForwarding: true }));
    const ticketIds = Array.from({ length: 3 }, () => uid("t"));
    const promises = await sell(eventId, ticketIds);
    // The node has the batch; the writer got no answer.
    const lost = await eventually(async () => chainApp.productionNode.sent[sentBefore], 10_000, "the batch to reach the node");
    lifts.pop()?.();
    const lostHash = keccak256(lost.raw);

    await waitForLedgerStatus(chainApp.testApp, promises, "confirmed", 30_000);
    const rows = await actionRows(chainApp.testApp, promises);
    expect(rows.map((row) => row.tx_hash)).toEqual(Array(3).fill(lostHash));
    // One transaction at the next nonce, sent once: no second one at another nonce, no replacement.
    const transactions = await transactionsOf(promises);
    expect(transactions.map((tx) => [Number(tx.nonce), tx.attempt, tx.tx_hash, tx.status])).toEqual([[nonceBefore, 1, lostHash, "confirmed"]]);
    expect((await chainTransactions(chainApp.testApp)).filter((tx) => Number(tx.nonce) >= nonceBefore)).toHaveLength(1);
    await expectMintedOnce(eventId, ticketIds, promises);
    await expectNoNonceGap();
  });

  it("an eth_sendRawTransaction lost before the node got it: the same bytes go out again and confirm once, no gap", async () => {
    const eventId = await registeredEvent(chainApp.api, chainApp.ticketeerId);
    const nonceBefore = Number((await sqlOf(chainApp.testApp)(`SELECT next_nonce FROM chain_signers`))[0].next_nonce);
    const callsBefore = chainApp.productionNode.count("eth_sendRawTransaction");

    lifts.push(chainApp.productionNode.dropCalls("eth_sendRawTransaction"));
    const ticketIds = Array.from({ length: 3 }, () => uid("t"));
    const promises = await sell(eventId, ticketIds);
    const signed = await eventually(async () => (await transactionsOf(promises))[0], 10_000, "the batch to be signed");
    await eventually(
      async () => (chainApp.productionNode.count("eth_sendRawTransaction") > callsBefore ? true : undefined),
      10_000,
      "its broadcast to be lost",
    );
    // The node never got it; the writer cannot know.
    expect(await chainApp.chain.provider.getTransaction(signed.tx_hash)).toBeNull();
    lifts.pop()?.();

    await waitForLedgerStatus(chainApp.testApp, promises, "confirmed", 30_000);
    const transactions = await transactionsOf(promises);
    expect(transactions.map((tx) => [Number(tx.nonce), tx.attempt, tx.tx_hash, tx.status])).toEqual([[nonceBefore, 1, signed.tx_hash, "confirmed"]]);
    expect(chainApp.productionNode.sent.filter((sent) => keccak256(sent.raw) === signed.tx_hash).length).toBeGreaterThan(0);
    await expectMintedOnce(eventId, ticketIds, promises);
    await expectNoNonceGap();
  });

  it("eth_sendRawTransaction answered seconds late: every batch confirms once, in nonce and acceptance order", async () => {
    const eventId = await registeredEvent(chainApp.api, chainApp.ticketeerId);
    const nonceBefore = Number((await sqlOf(chainApp.testApp)(`SELECT next_nonce FROM chain_signers`))[0].next_nonce);

    // The node gets each transaction at once (and may mine it); its answer comes 2.5 s later.
    lifts.push(chainApp.productionNode.delayCalls("eth_sendRawTransaction", 2_500, { afterForwarding: true }));
    const ticketIds: string[] = [];
    const promises: string[] = [];
    // Sales arriving while the first broadcast waits for its answer: more batches behind it.
    for (let round = 0; round < 3; round++) {
      const round_ = Array.from({ length: 2 }, () => uid("t"));
      ticketIds.push(...round_);
      promises.push(...(await sell(eventId, round_)));
      await new Promise((resolve) => setTimeout(resolve, 400));
    }
    // Confirmed from their receipts, whether or not their answers have come yet.
    await waitForLedgerStatus(chainApp.testApp, promises, "confirmed", 40_000);
    lifts.pop()?.();

    const transactions = await transactionsOf(promises);
    expect(transactions.length).toBeGreaterThan(1);
    // Consecutive nonces from the next one, each sent once.
    expect(transactions.map((tx) => [Number(tx.nonce), tx.attempt, tx.status])).toEqual(transactions.map((_, index) => [nonceBefore + index, 1, "confirmed"]));
    // Acceptance order is nonce order, and the chain mined them in that order.
    const nonceOf = new Map(transactions.map((tx) => [tx.tx_hash as string, Number(tx.nonce)]));
    const rows = await actionRows(chainApp.testApp, promises);
    const nonces = rows.map((row) => nonceOf.get(row.tx_hash as string) as number);
    expect(nonces).toEqual([...nonces].sort((a, b) => a - b));
    const positions: [number, number][] = [];
    for (const tx of transactions) {
      const receipt = await chainApp.chain.provider.getTransactionReceipt(tx.tx_hash);
      expect(receipt?.status).toBe(1);
      positions.push([receipt!.blockNumber, receipt!.index]);
    }
    expect(positions).toEqual([...positions].sort(([blockA, indexA], [blockB, indexB]) => blockA - blockB || indexA - indexB));
    await expectMintedOnce(eventId, ticketIds, promises);

    // The late answers do not hold the signer up: the next sale goes out at the next nonce.
    const next = await sell(eventId, [uid("t")]);
    await waitForLedgerStatus(chainApp.testApp, next, "confirmed", 20_000);
    expect((await transactionsOf(next)).map((tx) => [Number(tx.nonce), tx.attempt])).toEqual([[nonceBefore + transactions.length, 1]]);
    await expectNoNonceGap();
  });

  it("a broadcast slow to return while the watcher looks on: the watcher, which read the transaction unsent, does not send it again", async () => {
    const eventId = await registeredEvent(chainApp.api, chainApp.ticketeerId);
    const sentBefore = chainApp.productionNode.sent.length;
    // Each broadcast holds its flush for 1 s. A receipt is looked up at once and answered 1.5 s late:
    // a watcher pass that read the transaction as signed learns it is unmined after its flush let go.
    lifts.push(chainApp.productionNode.delayCalls("eth_sendRawTransaction", 1_000));
    lifts.push(chainApp.productionNode.delayCalls("eth_getTransactionReceipt", 1_500, { afterForwarding: true }));
    const ticketIds: string[] = [];
    const promises: string[] = [];
    for (let round = 0; round < 4; round++) {
      const sale = [uid("t")];
      ticketIds.push(...sale);
      promises.push(...(await sell(eventId, sale)));
      await waitForLedgerStatus(chainApp.testApp, promises, "confirmed", 30_000);
    }
    lifts.splice(0).forEach((lift) => lift());

    const raws = chainApp.productionNode.sent.slice(sentBefore).map((tx) => tx.raw);
    expect(raws).toHaveLength(4);
    expect(new Set(raws).size).toBe(4);
    await expectMintedOnce(eventId, ticketIds, promises);
    await expectNoNonceGap();
  });

  it("eth_getTransactionReceipt dropped for a while: the mined actions stay pending, then confirm once it is lifted", async () => {
    const eventId = await registeredEvent(chainApp.api, chainApp.ticketeerId);
    const nonceBefore = Number((await sqlOf(chainApp.testApp)(`SELECT next_nonce FROM chain_signers`))[0].next_nonce);

    lifts.push(chainApp.productionNode.dropCalls("eth_getTransactionReceipt"));
    const receiptCalls = chainApp.productionNode.count("eth_getTransactionReceipt");
    const ticketIds = Array.from({ length: 3 }, () => uid("t"));
    const promises = await sell(eventId, ticketIds);
    const sent = await eventually(async () => (await transactionsOf(promises)).find((tx) => tx.status === "broadcast"), 20_000, "the batch to be broadcast");
    // Mined, as the node itself says; the writer cannot read the receipt and asks again and again.
    await eventually(async () => (await chainApp.chain.provider.getTransactionReceipt(sent.tx_hash)) ?? undefined, 10_000, "the batch to be mined");
    await eventually(
      async () => (chainApp.productionNode.count("eth_getTransactionReceipt") >= receiptCalls + 2 ? true : undefined),
      10_000,
      "the writer to ask for it",
    );
    expect((await actionRows(chainApp.testApp, promises)).map((row) => [row.status, row.tx_hash])).toEqual(Array(3).fill(["pending", sent.tx_hash]));
    lifts.pop()?.();

    await waitForLedgerStatus(chainApp.testApp, promises, "confirmed", 30_000);
    const transactions = await transactionsOf(promises);
    expect(transactions.map((tx) => [Number(tx.nonce), tx.attempt, tx.tx_hash, tx.status])).toEqual([[nonceBefore, 1, sent.tx_hash, "confirmed"]]);
    expect((await actionRows(chainApp.testApp, promises)).map((row) => row.tx_hash)).toEqual(Array(3).fill(sent.tx_hash));
    await expectMintedOnce(eventId, ticketIds, promises);
    await expectNoNonceGap();
  });
});
