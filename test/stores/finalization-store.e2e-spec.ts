import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { BroadcastStore } from "../../src/chain/writer/broadcast/broadcast.store";
import { FinalizationStore } from "../../src/chain/writer/receipts/finalization.store";
import type { MinedReceipt, TokenHolder } from "../../src/chain/writer/receipts/mined-receipt";
import { TransactionFinalizer } from "../../src/chain/writer/receipts/transaction-finalizer";
import { SendingStore } from "../../src/chain/writer/sending/sending.store";
import type { OpenTransaction } from "../../src/chain/writer/signed-transaction";
import { loadConfig } from "../../src/config/app-config";
import { RegistryItemFailure } from "../../src/registry";
import {
  CHAIN,
  checkIn,
  claim,
  fakeSignature,
  newSigner,
  registration,
  sale,
  type SeededEvent,
  SHARD_COUNT,
  WALLET,
  WriterLedger,
  chainHolds,
  subjectFactsHolding,
} from "../support/writer-ledger";

const BLOCK_HASH = "0x" + "b1".repeat(32);

let ledger: WriterLedger;
let sending: SendingStore;
let broadcast: BroadcastStore;
let sut: FinalizationStore;

beforeAll(async () => {
  ledger = await WriterLedger.open();
  sending = new SendingStore(ledger.dataSource);
  broadcast = new BroadcastStore(ledger.dataSource);
  sut = new FinalizationStore(ledger.dataSource);
});

afterAll(async () => {
  await ledger?.close();
});

/** The event's accepted actions sent in one transaction and broadcast; its open attempt as the watcher reads it. */
async function sentAndBroadcast(event: SeededEvent, ids: string[]): Promise<{ signer: string; mined: OpenTransaction }> {
  const signer = newSigner();
  await sending.ensureSigner(signer, CHAIN.chainId, 0n);
  const waiting = await sending.waitingActions(SHARD_COUNT, Number(event.eventIndex), 100);
  expect(waiting.map((action) => action.id)).toEqual(ids);
  const sent = await sending.commitNewTransaction(signer, waiting, async (nonce) => fakeSignature(signer, nonce, waiting.length));
  await broadcast.markBroadcast(sent.id);
  const [mined] = await broadcast.openTransactions(signer);
  return { signer, mined };
}

/** `count` sales of a fresh event, sent and broadcast. */
async function sentSales(count: number) {
  const event = await ledger.ownShardEvent(count);
  const ids = await ledger.accept(
    event,
    event.tickets.map((ticket) => ({ ticket, item: sale(ticket) })),
  );
  return { event, ids, ...(await sentAndBroadcast(event, ids)) };
}

function receiptOf(mined: OpenTransaction, status: 0 | 1): MinedReceipt {
  return { hash: mined.hash, status, blockNumber: 42, blockHash: BLOCK_HASH, gasUsed: 123_456n, effectiveGasPrice: 1_000_000_007n, logs: [] };
}

describe("FinalizationStore.markConfirmed", () => {
  it("confirms the mined attempt and its actions, marks the other attempts replaced, and writes a callback per action", async () => {
    const { ids, signer, mined: first } = await sentSales(2);
    const replacement = await sending.commitReplacement(first, fakeSignature(signer, first.nonce, 2, 9_000_000_000n));
    const mined = (await broadcast.openTransactions(signer)).find((tx) => tx.id === replacement.id) as OpenTransaction;

    const closed = await sut.markConfirmed(mined, receiptOf(mined, 1), [], new Map(), CHAIN, chainHolds());

    expect(closed?.actions).toEqual(ids.map((id) => ({ id, requestId: "request-1", status: "confirmed", errorCode: null, acceptedAt: expect.any(Date) })));
    expect((await ledger.transactionRows(signer)).map((row) => [row.attempt, row.status, row.block_number, row.block_hash, row.gas_used])).toEqual([
      [1, "replaced", null, null, null],
      [2, "confirmed", "42", BLOCK_HASH, "123456"],
    ]);
    expect((await ledger.actionRows(ids)).map((row) => [row.status, row.tx_hash, row.block_number, row.block_hash, row.error_code])).toEqual([
      ["confirmed", replacement.hash, "42", BLOCK_HASH, null],
      ["confirmed", replacement.hash, "42", BLOCK_HASH, null],
    ]);
    const callbacks = await ledger.callbackRows(ids);
    expect(callbacks.map((row) => row.action_id).sort()).toEqual([...ids].sort());
    expect(callbacks[0].payload).toMatchObject({
      status: "confirmed",
      txHash: replacement.hash,
      blockNumber: 42,
      blockHash: BLOCK_HASH,
      error: null,
      chainId: 80002,
      registryAddress: CHAIN.registryAddress,
    });
  });

  it("fails the items the registry refused with their code, and tells the tickets their holders", async () => {
    const event = await ledger.ownShardEvent(3);
    const [t0, t1, t2] = event.tickets;
    const ids = await ledger.accept(event, [
      { ticket: t0, item: sale(t0) },
      { ticket: t1, item: claim(t1) },
      { ticket: t2, item: checkIn(t2) },
    ]);
    const { mined } = await sentAndBroadcast(event, ids);
    const refused = [{ batchIndex: 2, code: "onchain_ticket_unknown", message: "The registry refused the item: TicketUnknown." }];

    const closed = await sut.markConfirmed(mined, receiptOf(mined, 1), refused, new Map([[t1.tokenId, { holder: WALLET, logIndex: 3 }]]), CHAIN, chainHolds());

    expect(closed?.actions.map((action) => [action.status, action.errorCode])).toEqual([
      ["confirmed", null],
      ["confirmed", null],
      ["error", "onchain_ticket_unknown"],
    ]);
    expect((await ledger.actionRows(ids)).map((row) => [row.status, row.error_code, row.error_message])).toEqual([
      ["confirmed", null, null],
      ["confirmed", null, null],
      ["error", "onchain_ticket_unknown", "The registry refused the item: TicketUnknown."],
    ]);
    const holders = await ledger.sql<{ id: string; holder: string | null }>(`SELECT id, holder FROM tickets WHERE event_ref = $1 ORDER BY serial`, [event.ref]);
    expect(holders.map((row) => row.holder)).toEqual([null, WALLET, null]);
    const [claimed] = await ledger.sql<{ holder_block: string; holder_log_index: number }>(`SELECT holder_block, holder_log_index FROM tickets WHERE id = $1`, [
      t1.ref,
    ]);
    expect([Number(claimed.holder_block), claimed.holder_log_index]).toEqual([42, 3]);
    const [refusedCallback] = (await ledger.callbackRows([ids[2]])).map((row) => row.payload);
    expect(refusedCallback).toMatchObject({
      status: "error",
      error: { code: "onchain_ticket_unknown", message: "The registry refused the item: TicketUnknown." },
      txHash: mined.hash,
    });
  });

  it("keeps a holder that a later Transfer log set: a batch confirmed late does not take it back", async () => {
    const event = await ledger.ownShardEvent(1);
    const [ticket] = event.tickets;
    const ids = await ledger.accept(event, [{ ticket, item: claim(ticket) }]);
    const { mined } = await sentAndBroadcast(event, ids);
    const later = "0x000000000000000000000000000000000000bEEF";
    await ledger.sql(`UPDATE tickets SET holder = $2, holder_block = 43, holder_log_index = 0 WHERE id = $1`, [ticket.ref, later]);

    await sut.markConfirmed(mined, receiptOf(mined, 1), [], new Map([[ticket.tokenId, { holder: WALLET, logIndex: 7 }]]), CHAIN, chainHolds());

    const [row] = await ledger.sql<{ holder: string }>(`SELECT holder FROM tickets WHERE id = $1`, [ticket.ref]);
    expect(row.holder).toBe(later);
  });

  it("closes a nonce once: a second worker's finalization returns null and changes nothing", async () => {
    const { ids, mined } = await sentSales(2);
    await sut.markConfirmed(mined, receiptOf(mined, 1), [], new Map(), CHAIN, chainHolds());

    expect(await sut.markConfirmed(mined, receiptOf(mined, 1), [], new Map(), CHAIN, chainHolds())).toBeNull();
    expect(await sut.requeueReverted(mined, receiptOf(mined, 0), 3, CHAIN, chainHolds())).toBeNull();
    expect((await ledger.actionRows(ids)).map((row) => row.status)).toEqual(["confirmed", "confirmed"]);
    expect(await ledger.callbackRows(ids)).toHaveLength(2);
  });
});

describe("FinalizationStore.markConfirmed: items mined before what they depend on", () => {
  const eventUnknown = (batchIndex: number) => ({ batchIndex, code: "onchain_event_unknown", message: "The registry refused the item: EventUnknown." });
  const ticketUnknown = (batchIndex: number) => ({ batchIndex, code: "onchain_ticket_unknown", message: "The registry refused the item: TicketUnknown." });

  /** The event's registration and two sales accepted; the sales (only) sent and broadcast at a nonce of their own. */
  async function salesAheadOfTheirEvent() {
    const event = await ledger.ownShardEvent(2);
    const [registered, ...saleIds] = await ledger.accept(event, [
      { ticket: null, item: registration(event) },
      ...event.tickets.map((ticket) => ({ ticket, item: sale(ticket) })),
    ]);
    const signer = newSigner();
    await sending.ensureSigner(signer, CHAIN.chainId, 0n);
    const sales = (await sending.waitingActions(SHARD_COUNT, Number(event.eventIndex), 100)).slice(1);
    const sent = await sending.commitNewTransaction(signer, sales, async (nonce) => fakeSignature(signer, nonce, sales.length));
    await broadcast.markBroadcast(sent.id);
    const [mined] = await broadcast.openTransactions(signer);
    return { event, registered, saleIds, mined };
  }

  it("puts a sale refused as EventUnknown back in line, without a callback, while its event's registration is on its way", async () => {
    const { registered, saleIds, mined } = await salesAheadOfTheirEvent();

    const closed = await sut.markConfirmed(mined, receiptOf(mined, 1), [eventUnknown(0), eventUnknown(1)], new Map(), CHAIN, chainHolds());

    expect(closed?.actions.map((action) => [action.id, action.status, action.errorCode])).toEqual(saleIds.map((id) => [id, "waiting_broadcast", null]));
    expect((await ledger.actionRows([registered, ...saleIds])).map((row) => [row.status, row.tx_hash, row.tx_nonce, row.error_code])).toEqual([
      ["waiting_broadcast", null, null, null],
      ["waiting_broadcast", null, null, null],
      ["waiting_broadcast", null, null, null],
    ]);
    expect(await ledger.callbackRows(saleIds)).toEqual([]);
  });

  it("fails a sale refused as EventUnknown once its event's registration failed", async () => {
    const { registered, saleIds, mined } = await salesAheadOfTheirEvent();
    await ledger.sql(`UPDATE chain_actions SET status = 'error', error_code = 'onchain_event_exists' WHERE id = $1`, [registered]);

    const closed = await sut.markConfirmed(mined, receiptOf(mined, 1), [eventUnknown(0), eventUnknown(1)], new Map(), CHAIN, chainHolds());

    expect(closed?.actions.map((action) => [action.status, action.errorCode])).toEqual(Array(2).fill(["error", "onchain_event_unknown"]));
    expect((await ledger.callbackRows(saleIds)).map((row) => row.payload.status)).toEqual(["error", "error"]);
  });

  it("puts a check-in refused as TicketUnknown back in line while the ticket's sale is on its way; one of a ticket never sold fails", async () => {
    const event = await ledger.ownShardEvent(2);
    const [sold, unsold] = event.tickets;
    const [saleId, checkInId, strayId] = await ledger.accept(event, [
      { ticket: sold, item: sale(sold) },
      { ticket: sold, item: checkIn(sold) },
      { ticket: unsold, item: checkIn(unsold) },
    ]);
    const signer = newSigner();
    await sending.ensureSigner(signer, CHAIN.chainId, 0n);
    const waiting = await sending.waitingActions(SHARD_COUNT, Number(event.eventIndex), 100);
    // The sale at one nonce, the check-ins at the next, mined first.
    await sending.commitNewTransaction(signer, waiting.slice(0, 1), async (nonce) => fakeSignature(signer, nonce, 1));
    await sending.commitNewTransaction(signer, waiting.slice(1), async (nonce) => fakeSignature(signer, nonce, 2));
    const mined = (await broadcast.openTransactions(signer))[1];

    await sut.markConfirmed(mined, receiptOf(mined, 1), [ticketUnknown(0), ticketUnknown(1)], new Map(), CHAIN, chainHolds());

    expect((await ledger.actionRows([saleId, checkInId, strayId])).map((row) => [row.status, row.error_code])).toEqual([
      ["pending", null],
      ["waiting_broadcast", null],
      ["error", "onchain_ticket_unknown"],
    ]);
  });
});

describe("FinalizationStore.requeueReverted", () => {
  it("puts a reverted batch's actions back in line, with no callback, and marks the attempt reverted", async () => {
    const { event, ids, signer, mined } = await sentSales(2);

    const closed = await sut.requeueReverted(mined, receiptOf(mined, 0), 3, CHAIN, chainHolds());

    expect(closed?.actions.map((action) => [action.id, action.status, action.errorCode])).toEqual(ids.map((id) => [id, "waiting_broadcast", null]));
    expect((await ledger.transactionRows(signer)).map((row) => [row.status, row.gas_used])).toEqual([["reverted", "123456"]]);
    expect((await ledger.actionRows(ids)).map((row) => [row.status, row.tx_hash, row.tx_signer, row.tx_nonce, row.batch_index, row.reverted_attempts])).toEqual(
      [
        ["waiting_broadcast", null, null, null, null, 1],
        ["waiting_broadcast", null, null, null, null, 1],
      ],
    );
    expect(await ledger.callbackRows(ids)).toEqual([]);
    expect((await sending.waitingActions(SHARD_COUNT, Number(event.eventIndex), 10)).map((action) => action.id)).toEqual(ids);
  });

  it("fails an action for good on its last allowed revert, keeping the hash that carried it, with its callback", async () => {
    const { ids, mined } = await sentSales(2);
    await ledger.sql(`UPDATE chain_actions SET reverted_attempts = 2 WHERE id = $1`, [ids[0]]);

    const closed = await sut.requeueReverted(mined, receiptOf(mined, 0), 3, CHAIN, chainHolds());

    expect(closed?.actions.map((action) => [action.status, action.errorCode])).toEqual([
      ["error", "onchain_reverted"],
      ["waiting_broadcast", null],
    ]);
    expect((await ledger.actionRows(ids)).map((row) => [row.status, row.error_message, row.tx_hash, row.reverted_attempts])).toEqual([
      ["error", "The transaction carrying this action reverted 3 times.", mined.hash, 3],
      ["waiting_broadcast", null, null, 1],
    ]);
    const callbacks = await ledger.callbackRows(ids);
    expect(callbacks.map((row) => row.action_id)).toEqual([ids[0]]);
    expect(callbacks[0].payload).toMatchObject({ status: "error", error: { code: "onchain_reverted" }, txHash: mined.hash });
  });
});

describe("TransactionFinalizer over the store", () => {
  const finalizer = () => new TransactionFinalizer(sut, subjectFactsHolding(), loadConfig({ MAX_REVERTED_ATTEMPTS: "1" }));

  it("names a refused item by the registry's reason", async () => {
    const { ids, mined } = await sentSales(2);
    const outcome = { failures: new Map([[1, RegistryItemFailure.TicketExists]]), holders: new Map<bigint, TokenHolder>() };

    await finalizer().finalize(mined, receiptOf(mined, 1), outcome, CHAIN.chainId, CHAIN.registryAddress);

    expect((await ledger.actionRows(ids)).map((row) => [row.status, row.error_code, row.error_message])).toEqual([
      ["confirmed", null, null],
      ["error", "onchain_ticket_exists", "The registry refused the item: TicketExists."],
    ]);
  });

  it("requeues a reverted batch only up to MAX_REVERTED_ATTEMPTS", async () => {
    const { ids, mined } = await sentSales(1);

    await finalizer().finalize(mined, receiptOf(mined, 0), null, CHAIN.chainId, CHAIN.registryAddress);

    expect((await ledger.actionRows(ids)).map((row) => [row.status, row.error_code])).toEqual([["error", "onchain_reverted"]]);
  });
});
