import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { BroadcastStore } from "../../src/chain/writer/broadcast/broadcast.store";
import { ReceiptsStore } from "../../src/chain/writer/receipts/receipts.store";
import { ReconcileStore } from "../../src/chain/writer/reconcile/reconcile.store";
import { SignerStopsStore } from "../../src/chain/writer/reconcile/signer-stops.store";
import { RefusalsStore } from "../../src/chain/writer/refusals/refusals.store";
import { SendingStore } from "../../src/chain/writer/sending/sending.store";
import { CHAIN, fakeSignature, newSigner, sale, SHARD_COUNT, WriterLedger } from "../support/writer-ledger";

let ledger: WriterLedger;
let sending: SendingStore;
let receipts: ReceiptsStore;
let broadcast: BroadcastStore;
let refusals: RefusalsStore;
let reconcile: ReconcileStore;
let stops: SignerStopsStore;

beforeAll(async () => {
  ledger = await WriterLedger.open();
  sending = new SendingStore(ledger.dataSource);
  receipts = new ReceiptsStore(ledger.dataSource);
  broadcast = new BroadcastStore(ledger.dataSource);
  refusals = new RefusalsStore(ledger.dataSource);
  reconcile = new ReconcileStore(ledger.dataSource);
  stops = new SignerStopsStore(ledger.dataSource);
});

afterAll(async () => {
  await ledger?.close();
});

/** `nonces` transactions of one action each (sales of a fresh event), signed from nonce 0; the action ids in nonce order. */
async function signedNonces(signer: string, nonces: number): Promise<string[]> {
  const event = await ledger.ownShardEvent(nonces);
  const ids = await ledger.accept(
    event,
    event.tickets.map((ticket) => ({ ticket, item: sale(ticket) })),
  );
  await sending.ensureSigner(signer, CHAIN.chainId, 0n);
  for (const action of await sending.waitingActions(SHARD_COUNT, Number(event.eventIndex), 100)) {
    await sending.commitNewTransaction(signer, [action], async (nonce) => fakeSignature(signer, nonce, 1));
  }
  return ids;
}

describe("RefusalsStore.giveUpTakenNonce", () => {
  it("gives up the taken nonce and takes back the later ones from withdrawFrom: their actions wait again, the next nonce follows", async () => {
    const signer = newSigner();
    const ids = await signedNonces(signer, 4);

    // Nonce 1 taken; the node holds nonce 2; nonce 3 it does not hold.
    const requeued = await refusals.giveUpTakenNonce(signer, 1n, 2n, 3n);

    expect(requeued).toBe(2);
    expect((await ledger.transactionRows(signer)).map((row) => [row.nonce, row.status])).toEqual([
      ["0", "signed"],
      ["1", "dropped"],
      ["2", "signed"],
      ["3", "dropped"],
    ]);
    expect((await ledger.actionRows(ids)).map((row) => [row.status, row.tx_nonce])).toEqual([
      ["pending", "0"],
      ["waiting_broadcast", null],
      ["pending", "2"],
      ["waiting_broadcast", null],
    ]);
    expect(await ledger.nextNonce(signer)).toBe("3");
  });
});

describe("ReconcileStore.apply and SignerStopsStore", () => {
  it("marks found transactions mined, gives up and takes back nonces, follows the chain's nonce and clears the stop", async () => {
    const signer = newSigner();
    const ids = await signedNonces(signer, 3);
    expect(await stops.stop(signer, { ledgerNonce: "3", chainNonce: "4", displacedHashes: [], reason: "test" })).toBe(true);
    expect(await stops.stop(signer, { ledgerNonce: "9", chainNonce: "9", displacedHashes: [], reason: "later" })).toBe(false);
    expect((await stops.stopped()).find((stop) => stop.signer === signer)).toMatchObject({ ledgerNonce: "3", chainNonce: "4", reason: "test" });
    const [first] = await broadcast.openTransactions(signer);

    const applied = await reconcile.apply(signer, {
      mined: [{ id: first.id, blockNumber: 7, blockHash: "0x" + "07".repeat(32) }],
      givenUp: [1n],
      withdrawn: [2n],
      nextNonce: 2n,
    });

    expect(applied).toEqual({ requeued: 2, nextNonce: 2n });
    expect((await ledger.transactionRows(signer)).map((row) => [row.nonce, row.status, row.block_number])).toEqual([
      ["0", "mined", "7"],
      ["1", "dropped", null],
      ["2", "dropped", null],
    ]);
    expect((await ledger.actionRows(ids)).map((row) => row.status)).toEqual(["pending", "waiting_broadcast", "waiting_broadcast"]);
    expect(await stops.stateOf(signer)).toEqual({ nextNonce: 2n, stop: null });
  });

  it("never moves the next nonce below one the ledger saw mined", async () => {
    const signer = newSigner();
    await signedNonces(signer, 2);
    const [, second] = await broadcast.openTransactions(signer);
    await receipts.markMined(second.id, 3, "0x" + "03".repeat(32));

    expect((await reconcile.apply(signer, { mined: [], givenUp: [], withdrawn: [], nextNonce: 0n })).nextNonce).toBe(2n);
  });
});
