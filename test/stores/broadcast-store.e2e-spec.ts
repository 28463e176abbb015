import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { BroadcastStore } from "../../src/chain/writer/broadcast/broadcast.store";
import { SendingStore } from "../../src/chain/writer/sending/sending.store";
import { fakeSignature, WriterLedger } from "../support/writer-ledger";

let ledger: WriterLedger;
let sending: SendingStore;
let sut: BroadcastStore;

beforeAll(async () => {
  ledger = await WriterLedger.open();
  sending = new SendingStore(ledger.dataSource);
  sut = new BroadcastStore(ledger.dataSource);
});

afterAll(async () => {
  await ledger?.close();
});

describe("BroadcastStore.openTransactions", () => {
  it("lists the signer's attempts not yet final by nonce then attempt, every field read back", async () => {
    const signer = await ledger.signerAt(10n);
    const closed = await ledger.committedSale(signer);
    const first = await ledger.committedSale(signer);
    const second = await ledger.committedSale(signer);
    const replacement = await sending.commitReplacement(first, fakeSignature(signer, first.nonce, 1, 5_000_000_000n));
    await sut.markBroadcast(replacement.id);
    await ledger.sql(`UPDATE chain_transactions SET status = 'confirmed' WHERE id = $1`, [closed.id]);
    await ledger.committedSale(await ledger.signerAt(0n));

    const open = await sut.openTransactions(signer);

    expect(open.map((tx) => [tx.nonce, tx.attempt, tx.status])).toEqual([
      [11n, 1, "signed"],
      [11n, 2, "broadcast"],
      [12n, 1, "signed"],
    ]);
    const { carried, ...signed } = second;
    expect(carried).toHaveLength(1);
    expect(open[2]).toEqual({ ...signed, status: "signed", broadcastAt: null, createdAt: expect.any(Date), minedIn: null });
    expect(open[1]).toMatchObject({
      hash: replacement.hash,
      raw: replacement.raw,
      maxFeePerGas: 5_000_000_000n,
      maxPriorityFeePerGas: 2_500_000_000n,
      broadcastAt: expect.any(Date),
    });
  });

  it("reads each open attempt's bytes once: later reads take them from the first, and read only new attempts'", async () => {
    const signer = await ledger.signerAt(20n);
    const first = await ledger.committedSale(signer);
    const [read] = await sut.openTransactions(signer);
    // No path of the service rewrites an attempt's bytes: a read that fetched them again would show this.
    await ledger.sql(`UPDATE chain_transactions SET raw_tx = '0x00' WHERE id = $1`, [first.id]);
    const second = await ledger.committedSale(signer);

    const open = await sut.openTransactions(signer);

    expect(open.map((tx) => tx.raw)).toEqual([read.raw, second.raw]);
    expect(read.raw).toBe(first.raw);
    expect(await new BroadcastStore(ledger.dataSource).openTransactions(signer)).toMatchObject([{ raw: "0x00" }, { raw: second.raw }]);
  });
});

describe("BroadcastStore.unsentTransactions and stillUnsent", () => {
  it("lists the latest attempt of each open nonce never broadcast, oldest nonce first, and tells one attempt apart", async () => {
    const signer = await ledger.signerAt(0n);
    const broadcast = await ledger.committedSale(signer);
    const signed = await ledger.committedSale(signer);
    const replaced = await ledger.committedSale(signer);
    const replacement = await sending.commitReplacement(replaced, fakeSignature(signer, replaced.nonce, 1, 5_000_000_000n));
    const confirmed = await ledger.committedSale(signer);
    await sut.markBroadcast(broadcast.id);
    await ledger.sql(`UPDATE chain_transactions SET status = 'confirmed' WHERE id = $1`, [confirmed.id]);
    await ledger.committedSale(await ledger.signerAt(0n));

    const unsent = await sut.unsentTransactions(signer);

    expect(unsent.map((tx) => [tx.nonce, tx.attempt, tx.id])).toEqual([
      [signed.nonce, 1, signed.id],
      [replaced.nonce, 2, replacement.id],
    ]);
    expect(await sut.stillUnsent(signed.id)).toBe(true);
    expect(await sut.stillUnsent(broadcast.id)).toBe(false);
    expect(await sut.stillUnsent(confirmed.id)).toBe(false);
  });
});

describe("BroadcastStore.markBroadcast", () => {
  it("moves a signed attempt to broadcast, with the time it went out, and leaves a later state alone", async () => {
    const signer = await ledger.signerAt(0n);
    const signed = await ledger.committedSale(signer);
    const mined = await ledger.committedSale(signer);
    await ledger.sql(`UPDATE chain_transactions SET status = 'mined' WHERE id = $1`, [mined.id]);

    await sut.markBroadcast(signed.id);
    await sut.markBroadcast(mined.id);

    const rows = await ledger.transactionRows(signer);
    expect(rows.map((row) => row.status)).toEqual(["broadcast", "mined"]);
    expect(rows[0].broadcast_at).toBeInstanceOf(Date);
    expect(rows[1].broadcast_at).toBeNull();
  });
});
