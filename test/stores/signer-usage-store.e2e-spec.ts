import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { FinalizationStore } from "../../src/chain/writer/receipts/finalization.store";
import { BroadcastStore } from "../../src/chain/writer/broadcast/broadcast.store";
import { SendingStore } from "../../src/chain/writer/sending/sending.store";
import { SignerUsageStore, uuidv7Floor } from "../../src/chain/writer/signer-funds/signer-usage.store";
import { CHAIN, chainHolds, fakeSignature, newSigner, sale, SHARD_COUNT, WriterLedger } from "../support/writer-ledger";

const HOUR_MS = 60 * 60 * 1000;

let ledger: WriterLedger;
let sending: SendingStore;
let sut: SignerUsageStore;

beforeAll(async () => {
  ledger = await WriterLedger.open();
  sending = new SendingStore(ledger.dataSource);
  sut = new SignerUsageStore(ledger.dataSource);
});

afterAll(async () => {
  await ledger?.close();
});

/** A one-sale batch sent by `signer`; confirmed with `gasUsed` when given, left open otherwise. */
async function batch(signer: string, gasUsed?: bigint): Promise<void> {
  const event = await ledger.ownShardEvent(1);
  await ledger.accept(event, [{ ticket: event.tickets[0], item: sale(event.tickets[0]) }]);
  const waiting = await sending.waitingActions(SHARD_COUNT, Number(event.eventIndex), 10);
  const sent = await sending.commitNewTransaction(signer, waiting, async (nonce) => fakeSignature(signer, nonce, 1));
  if (gasUsed === undefined) return;
  const [open] = (await new BroadcastStore(ledger.dataSource).openTransactions(signer)).filter((tx) => tx.id === sent.id);
  const receipt = { hash: open.hash, status: 1, blockNumber: 1, blockHash: "0x01", gasUsed, effectiveGasPrice: 1n, logs: [] };
  await new FinalizationStore(ledger.dataSource).markConfirmed(open, receipt, [], new Map(), CHAIN, chainHolds());
}

/** A finalized transaction signed `agoMs` ago: its UUIDv7 id carries the time. */
async function oldTransaction(signer: string, agoMs: number, gasUsed: bigint): Promise<void> {
  const id = uuidv7Floor(Date.now() - agoMs).replace(/0{12}$/, "000000000001");
  await ledger.sql(
    `INSERT INTO chain_transactions (id, signer, chain_id, nonce, attempt, tx_hash, raw_tx, gas_limit, max_fee_per_gas, max_priority_fee_per_gas, item_count, status, gas_used)
     VALUES ($1, $2, 80002, 999, 1, $3, '0x02', 1, 1, 1, 1, 'confirmed', $4)`,
    [id, signer, `0x${id.replace(/-/g, "")}`, gasUsed.toString()],
  );
}

describe("SignerUsageStore.usageSince", () => {
  it("sums the gas of each signer's finalized transactions signed since then, and reads its next nonce", async () => {
    const [busy, quiet, idle] = [newSigner(), newSigner(), newSigner()];
    await sending.ensureSigner(busy, CHAIN.chainId, 10n);
    await sending.ensureSigner(quiet, CHAIN.chainId, 3n);
    await sending.ensureSigner(idle, CHAIN.chainId, 0n);
    await batch(busy, 100_000n);
    await batch(busy, 50_000n);
    await batch(busy);
    await oldTransaction(busy, 2 * HOUR_MS, 1_000_000n);
    await batch(quiet, 70_000n);

    const usage = await sut.usageSince(new Date(Date.now() - HOUR_MS));

    expect([busy, quiet, idle].map((signer) => usage.gas.get(signer))).toEqual([150_000n, 70_000n, 0n]);
    expect([busy, quiet, idle].map((signer) => usage.nextNonces.get(signer))).toEqual([13, 4, 0]);
    expect(usage.gas.has(newSigner())).toBe(false);
  });
});
