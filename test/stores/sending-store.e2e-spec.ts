import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { ReceiptsStore } from "../../src/chain/writer/receipts/receipts.store";
import { ActionsChangedWhileSigning, SendingStore } from "../../src/chain/writer/sending/sending.store";
import { CHAIN, chainHolds, checkIn, fakeSignature, newSigner, sale, SHARD_COUNT, WriterLedger } from "../support/writer-ledger";

let ledger: WriterLedger;
let sut: SendingStore;

beforeAll(async () => {
  ledger = await WriterLedger.open();
  sut = new SendingStore(ledger.dataSource);
});

afterAll(async () => {
  await ledger?.close();
});

/** A registered signer, starting at `nonce`. */
async function signerAt(nonce: bigint): Promise<string> {
  const signer = newSigner();
  await sut.ensureSigner(signer, CHAIN.chainId, nonce);
  return signer;
}

/** An event alone in its shard with `count` sales accepted; the sales' ids and the actions as the writer reads them. */
async function waitingSales(count: number, requestId = "request-1") {
  const event = await ledger.ownShardEvent(count);
  const ids = await ledger.accept(
    event,
    event.tickets.map((ticket) => ({ ticket, item: sale(ticket) })),
    requestId,
  );
  return { event, ids, waiting: await sut.waitingActions(SHARD_COUNT, Number(event.eventIndex), 100) };
}

describe("SendingStore.ensureSigner", () => {
  it("registers a signer at the chain's nonce the first time only: then the ledger counts", async () => {
    const signer = await signerAt(7n);
    await sut.ensureSigner(signer, CHAIN.chainId, 2n);
    expect(await ledger.nextNonce(signer)).toBe("7");
  });
});

describe("SendingStore.waitingActions", () => {
  it("takes the shard's waiting actions in acceptance order across its events, decoded, up to the limit", async () => {
    const first = await ledger.ownShardEvent(1);
    const shard = Number(first.eventIndex);
    const sameShard = await ledger.event(1, first.eventIndex + BigInt(SHARD_COUNT));
    const otherShard = await ledger.ownShardEvent(1);
    const [sold] = await ledger.accept(first, [{ ticket: first.tickets[0], item: sale(first.tickets[0]) }]);
    const [otherSold] = await ledger.accept(sameShard, [{ ticket: sameShard.tickets[0], item: sale(sameShard.tickets[0]) }]);
    const [elsewhere] = await ledger.accept(otherShard, [{ ticket: otherShard.tickets[0], item: sale(otherShard.tickets[0]) }]);
    const [scanned] = await ledger.accept(first, [{ ticket: first.tickets[0], item: checkIn(first.tickets[0]) }]);

    const waiting = await sut.waitingActions(SHARD_COUNT, shard, 10);

    expect(waiting.map((action) => action.id)).toEqual([sold, otherSold, scanned]);
    expect(waiting[2].item).toEqual(checkIn(first.tickets[0]));
    expect(waiting[0].seq < waiting[1].seq && waiting[1].seq < waiting[2].seq).toBe(true);
    expect(waiting[0].acceptedAt).toBeInstanceOf(Date);
    expect((await sut.waitingActions(SHARD_COUNT, shard, 2)).map((action) => action.id)).toEqual([sold, otherSold]);
    expect((await sut.waitingActions(SHARD_COUNT, Number(otherShard.eventIndex), 10)).map((action) => action.id)).toEqual([elsewhere]);
  });
});

describe("SendingStore.readWaiting", () => {
  it("reads each organization's oldest waiting actions of the shard, in acceptance order, the limit shared among the organizations", async () => {
    const backlogged = await ledger.ownShardEvent(6);
    const shard = Number(backlogged.eventIndex);
    const other = await ledger.otherOrganization("ticketeer-other");
    const otherEvent = await other.event(2, backlogged.eventIndex + 2n * BigInt(SHARD_COUNT));
    const backlog = await ledger.accept(
      backlogged,
      backlogged.tickets.map((ticket) => ({ ticket, item: sale(ticket) })),
    );
    const others = await other.accept(
      otherEvent,
      otherEvent.tickets.map((ticket) => ({ ticket, item: sale(ticket) })),
    );

    // Two organizations share a limit of 6: 3 each, the other's 2 and the backlog's oldest 3.
    const read = await sut.readWaiting(SHARD_COUNT, shard, 6);

    expect(read.perOrganization).toBe(3);
    expect(read.actions.map((action) => action.id)).toEqual([...backlog.slice(0, 3), ...others]);
    expect(new Set(read.actions.map((action) => action.organizationId)).size).toBe(2);
    expect((await sut.readWaiting(SHARD_COUNT, shard, 100)).actions.map((action) => action.id)).toEqual([...backlog, ...others]);
  });
});

describe("SendingStore.commitNewTransaction", () => {
  it("signs with the signer's next nonce and commits the transaction and its actions, in batch order, before any broadcast", async () => {
    const signer = await signerAt(5n);
    const { event, ids, waiting } = await waitingSales(3, "request-9");
    const noncesSigned: bigint[] = [];

    const sent = await sut.commitNewTransaction(signer, waiting, async (nonce) => {
      noncesSigned.push(nonce);
      return fakeSignature(signer, nonce, waiting.length);
    });

    expect(noncesSigned).toEqual([5n]);
    expect(sent).toMatchObject({ signer, nonce: 5n, attempt: 1, itemCount: 3 });
    expect(sent.carried).toEqual(ids.map((id) => ({ id, requestId: "request-9" })));
    expect((await ledger.actionRows(ids)).map((row) => [row.status, row.tx_hash, row.tx_signer, row.tx_nonce, row.batch_index])).toEqual([
      ["pending", sent.hash, signer, "5", 0],
      ["pending", sent.hash, signer, "5", 1],
      ["pending", sent.hash, signer, "5", 2],
    ]);
    expect(await ledger.transactionRows(signer)).toEqual([
      expect.objectContaining({ id: sent.id, nonce: "5", attempt: 1, tx_hash: sent.hash, status: "signed", broadcast_at: null }),
    ]);
    expect(await ledger.nextNonce(signer)).toBe("6");
    expect(await sut.waitingActions(SHARD_COUNT, Number(event.eventIndex), 100)).toEqual([]);
  });

  it("gives batches of one signer committed at the same time consecutive nonces", async () => {
    const signer = await signerAt(0n);
    const [a, b] = [await waitingSales(1), await waitingSales(1)];

    const sent = await Promise.all([a, b].map(({ waiting }) => sut.commitNewTransaction(signer, waiting, async (nonce) => fakeSignature(signer, nonce, 1))));

    expect(sent.map((tx) => tx.nonce).sort()).toEqual([0n, 1n]);
    expect(await ledger.nextNonce(signer)).toBe("2");
  });

  it("commits nothing, nonce included, when an action stopped waiting while its transaction was signed", async () => {
    const signer = await signerAt(3n);
    const { ids, waiting } = await waitingSales(2);

    const committing = sut.commitNewTransaction(signer, waiting, async (nonce) => {
      await ledger.sql(`UPDATE chain_actions SET status = 'error' WHERE id = $1`, [ids[1]]);
      return fakeSignature(signer, nonce, 2);
    });

    await expect(committing).rejects.toThrow(ActionsChangedWhileSigning);
    expect(await ledger.nextNonce(signer)).toBe("3");
    expect(await ledger.transactionRows(signer)).toEqual([]);
    expect((await ledger.actionRows(ids)).map((row) => [row.status, row.tx_hash, row.tx_nonce])).toEqual([
      ["waiting_broadcast", null, null],
      ["error", null, null],
    ]);
  });
});

describe("SendingStore.commitReplacement", () => {
  it("adds the next attempt at the same nonce and moves the carried actions to its hash", async () => {
    const signer = await signerAt(0n);
    const { ids, waiting } = await waitingSales(2);
    const first = await sut.commitNewTransaction(signer, waiting, async (nonce) => fakeSignature(signer, nonce, 2));

    const replacement = await sut.commitReplacement(first, fakeSignature(signer, first.nonce, 2, 3_000_000_000n));

    expect(replacement).toMatchObject({ nonce: first.nonce, attempt: 2, maxFeePerGas: 3_000_000_000n });
    expect((await ledger.transactionRows(signer)).map((row) => [row.nonce, row.attempt, row.tx_hash, row.status])).toEqual([
      ["0", 1, first.hash, "signed"],
      ["0", 2, replacement.hash, "signed"],
    ]);
    expect((await ledger.actionRows(ids)).map((row) => [row.status, row.tx_hash, row.tx_nonce])).toEqual([
      ["pending", replacement.hash, "0"],
      ["pending", replacement.hash, "0"],
    ]);
    expect(await ledger.nextNonce(signer)).toBe("1");
  });
});

describe("SendingStore.countNoncesInFlight", () => {
  it("counts each open nonce once, however many attempts it has, and no closed one", async () => {
    const signer = await signerAt(0n);
    const sent = [];
    for (let batch = 0; batch < 3; batch++) {
      const { waiting } = await waitingSales(1);
      sent.push(await sut.commitNewTransaction(signer, waiting, async (nonce) => fakeSignature(signer, nonce, 1)));
    }
    await sut.commitReplacement(sent[1], fakeSignature(signer, sent[1].nonce, 1));
    await ledger.sql(`UPDATE chain_transactions SET status = 'confirmed' WHERE id = $1`, [sent[0].id]);

    expect(await sut.countNoncesInFlight(signer)).toBe(2);
    expect(await sut.countNoncesInFlight(newSigner())).toBe(0);
  });

  it("counts no nonce seen mined, however far from final, and counts one again once a reorg takes its block back", async () => {
    const signer = await signerAt(0n);
    const receipts = new ReceiptsStore(ledger.dataSource);
    const sent = [];
    for (let batch = 0; batch < 4; batch++) {
      const { waiting } = await waitingSales(1);
      sent.push(await sut.commitNewTransaction(signer, waiting, async (nonce) => fakeSignature(signer, nonce, 1)));
    }
    // Nonce 1 was bumped, and its first attempt is the one mined: the replacement stays open, unmined.
    await sut.commitReplacement(sent[1], fakeSignature(signer, sent[1].nonce, 1));
    await receipts.markMined(sent[0].id, 10, `0x${"a".repeat(64)}`);
    await receipts.markMined(sent[1].id, 10, `0x${"a".repeat(64)}`);
    expect(await sut.countNoncesInFlight(signer)).toBe(2);

    await receipts.markUnmined(sent[0].id);

    expect(await sut.countNoncesInFlight(signer)).toBe(3);
  });
});

describe("SendingStore.failUnencodable", () => {
  it("fails waiting actions without a transaction and writes their error callbacks, leaving the others waiting", async () => {
    const { ids } = await waitingSales(2, "request-4");

    const failed = await sut.failUnencodable([{ id: ids[0], reason: "price 1e40 does not fit" }], CHAIN.chainId, CHAIN.registryAddress, chainHolds());

    expect(failed).toEqual([{ id: ids[0], requestId: "request-4", status: "error", errorCode: "onchain_unencodable", acceptedAt: expect.any(Date) }]);
    expect((await ledger.actionRows(ids)).map((row) => [row.status, row.error_code, row.error_message, row.tx_hash])).toEqual([
      ["error", "onchain_unencodable", "price 1e40 does not fit", null],
      ["waiting_broadcast", null, null, null],
    ]);
    const callbacks = await ledger.callbackRows(ids);
    expect(callbacks).toHaveLength(1);
    expect(callbacks[0]).toMatchObject({
      action_id: ids[0],
      payload: {
        status: "error",
        error: { code: "onchain_unencodable", message: "price 1e40 does not fit" },
        txHash: null,
        chainId: 80002,
        registryAddress: CHAIN.registryAddress,
      },
    });
  });

  it("records the code it is given: an action too large for any transaction", async () => {
    const { ids } = await waitingSales(1, "request-5");
    const [failed] = await sut.failUnencodable(
      [{ id: ids[0], reason: "too many bytes", code: "onchain_item_too_large" }],
      CHAIN.chainId,
      CHAIN.registryAddress,
      chainHolds(),
    );
    expect(failed.errorCode).toBe("onchain_item_too_large");
    expect((await ledger.callbackRows(ids))[0].payload).toMatchObject({ error: { code: "onchain_item_too_large", message: "too many bytes" } });
  });
});
