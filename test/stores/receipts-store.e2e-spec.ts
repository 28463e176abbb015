import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { BroadcastStore } from "../../src/chain/writer/broadcast/broadcast.store";
import { ReceiptsStore } from "../../src/chain/writer/receipts/receipts.store";
import { WriterLedger } from "../support/writer-ledger";

const BLOCK_HASH = "0x" + "b1".repeat(32);

let ledger: WriterLedger;
let broadcasts: BroadcastStore;
let sut: ReceiptsStore;

beforeAll(async () => {
  ledger = await WriterLedger.open();
  broadcasts = new BroadcastStore(ledger.dataSource);
  sut = new ReceiptsStore(ledger.dataSource);
});

afterAll(async () => {
  await ledger?.close();
});

describe("ReceiptsStore.markMined and markUnmined", () => {
  it("records the block an attempt was mined in, and forgets it when a reorg takes the block back", async () => {
    const signer = await ledger.signerAt(0n);
    const tx = await ledger.committedSale(signer);
    await broadcasts.markBroadcast(tx.id);

    await sut.markMined(tx.id, 120, BLOCK_HASH);
    expect(await ledger.transactionRows(signer)).toEqual([expect.objectContaining({ status: "mined", block_number: "120", block_hash: BLOCK_HASH })]);
    expect((await broadcasts.openTransactions(signer)).map((open) => open.status)).toEqual(["mined"]);

    await ledger.sql(`UPDATE chain_transactions SET broadcast_at = now() - interval '1 hour' WHERE id = $1`, [tx.id]);
    await sut.markUnmined(tx.id);
    const [unmined] = await ledger.transactionRows(signer);
    expect(unmined).toMatchObject({ status: "broadcast", block_number: null, block_hash: null });
    // Sent again now: the stuck clock restarts.
    expect((unmined.broadcast_at as Date).getTime()).toBeGreaterThan(Date.now() - 60_000);
  });

  it("leaves a closed attempt as it is, and an attempt not mined unchanged by markUnmined", async () => {
    const signer = await ledger.signerAt(0n);
    const confirmed = await ledger.committedSale(signer);
    const broadcast = await ledger.committedSale(signer);
    await broadcasts.markBroadcast(broadcast.id);
    await ledger.sql(`UPDATE chain_transactions SET status = 'confirmed', block_number = 7, block_hash = 'h7' WHERE id = $1`, [confirmed.id]);
    const before = await ledger.transactionRows(signer);

    await sut.markMined(confirmed.id, 9, BLOCK_HASH);
    await sut.markUnmined(confirmed.id);
    await sut.markUnmined(broadcast.id);

    expect(await ledger.transactionRows(signer)).toEqual(before);
  });
});
