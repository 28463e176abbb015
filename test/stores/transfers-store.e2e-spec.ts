import { randomBytes } from "node:crypto";

import { getAddress } from "ethers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { CursorMovedError, type LogCursor, TransfersStore } from "../../src/chain/transfers/transfers.store";
import type { WalletTransfer } from "../../src/chain/transfers/wallet-transfers";
import { CHAIN, claim, type SeededTicket, WriterLedger } from "../support/writer-ledger";

let ledger: WriterLedger;
let sut: TransfersStore;

beforeAll(async () => {
  ledger = await WriterLedger.open();
  sut = new TransfersStore(ledger.dataSource);
});

afterAll(async () => {
  await ledger?.close();
});

const address = () => getAddress("0x" + randomBytes(20).toString("hex"));
const hash = () => "0x" + randomBytes(32).toString("hex");

function transfer(ticket: SeededTicket, from: string, to: string, blockNumber: number, logIndex: number, txHash = hash()): WalletTransfer {
  return { tokenId: ticket.tokenId, from, to, txHash, blockNumber, blockHash: hash(), logIndex, key: `${txHash}/${ticket.tokenId}/${from}/${to}/0` };
}

/** A cursor of a registry of the test's own, at `fromBlock`. */
async function freshCursor(fromBlock = 10): Promise<LogCursor> {
  return sut.cursor(CHAIN.chainId, address(), fromBlock);
}

const holderOf = async (ticket: SeededTicket) =>
  (await ledger.sql<{ holder: string | null }>(`SELECT holder FROM tickets WHERE id = $1`, [ticket.ref]))[0].holder;

describe("TransfersStore", () => {
  it("records each transfer of a ledger's ticket as a confirmed transferred action with its callback, and moves the cursor", async () => {
    const event = await ledger.ownShardEvent(2);
    const [first, second] = event.tickets;
    const [alice, bob, carol] = [address(), address(), address()];
    const cursor = await freshCursor();
    const unknownToken = { ref: "", tokenId: (1n << 100n) | 1n };
    const transfers = [
      transfer(first, alice, bob, 11, 3),
      transfer(first, bob, carol, 12, 0),
      transfer(second, alice, carol, 12, 1),
      transfer(unknownToken, alice, bob, 12, 2),
    ];

    const { cursor: moved, recorded } = await sut.record(cursor, transfers, { nextBlock: 13, lastBlockHash: "0xabc" });

    expect(moved).toMatchObject({ nextBlock: 13, lastBlockHash: "0xabc" });
    expect(await sut.cursor(cursor.chainId, cursor.registryAddress, 10)).toMatchObject({ nextBlock: 13, lastBlockHash: "0xabc" });
    expect(recorded).toHaveLength(3);
    const actions = await ledger.sql<{
      id: string;
      kind: string;
      requested_as: string;
      status: string;
      tx_hash: string;
      block_number: string;
      ticket_ref: string;
      payload: any;
    }>(`SELECT id, kind, requested_as, status, tx_hash, block_number, ticket_ref, payload FROM chain_actions WHERE id = ANY($1::uuid[]) ORDER BY seq`, [
      recorded,
    ]);
    expect(
      actions.map((row) => [row.kind, row.requested_as, row.status, row.tx_hash, Number(row.block_number), row.ticket_ref, row.payload.from, row.payload.to]),
    ).toEqual([
      ["transferred", "chain", "confirmed", transfers[0].txHash, 11, first.ref, alice, bob],
      ["transferred", "chain", "confirmed", transfers[1].txHash, 12, first.ref, bob, carol],
      ["transferred", "chain", "confirmed", transfers[2].txHash, 12, second.ref, alice, carol],
    ]);
    const callbacks = await ledger.callbackRows(recorded);
    expect(callbacks.map((row) => [row.payload.action, row.payload.transactionType, row.payload.from, row.payload.to, row.payload.chainId])).toEqual(
      expect.arrayContaining([
        ["transferred", "ticket", alice, bob, Number(CHAIN.chainId)],
        ["transferred", "ticket", bob, carol, Number(CHAIN.chainId)],
        ["transferred", "ticket", alice, carol, Number(CHAIN.chainId)],
      ]),
    );
    expect([await holderOf(first), await holderOf(second)]).toEqual([carol, carol]);
  });

  it("records a transfer read twice once, and never takes a holder back to an earlier transfer", async () => {
    const event = await ledger.ownShardEvent(1);
    const [ticket] = event.tickets;
    const [alice, bob, carol] = [address(), address(), address()];
    let cursor = await freshCursor();
    const later = transfer(ticket, bob, carol, 20, 5);
    ({ cursor } = await sut.record(cursor, [later], { nextBlock: 21, lastBlockHash: "0x1" }));
    cursor = await sut.rewind(cursor, 10);

    const again = await sut.record(cursor, [transfer(ticket, alice, bob, 15, 0), later], { nextBlock: 21, lastBlockHash: "0x2" });

    expect(again.recorded).toHaveLength(1);
    expect(await holderOf(ticket)).toBe(carol);
    const rows = await ledger.sql<{ count: number }>(`SELECT count(*)::int AS count FROM chain_actions WHERE ticket_ref = $1 AND kind = 'transferred'`, [
      ticket.ref,
    ]);
    expect(rows[0].count).toBe(2);
  });

  it("applies nothing when another worker moved the cursor first", async () => {
    const event = await ledger.ownShardEvent(1);
    const cursor = await freshCursor();
    await sut.record(cursor, [], { nextBlock: 30, lastBlockHash: "0x3" });

    await expect(sut.record(cursor, [transfer(event.tickets[0], address(), address(), 25, 0)], { nextBlock: 31, lastBlockHash: "0x4" })).rejects.toThrow(
      CursorMovedError,
    );
    expect(await holderOf(event.tickets[0])).toBeNull();
    expect(await sut.cursor(cursor.chainId, cursor.registryAddress, 10)).toMatchObject({ nextBlock: 30 });
  });

  it("names the tokens whose claim is not final yet, whose transfers must wait for its callback", async () => {
    const event = await ledger.ownShardEvent(3);
    const [pending, confirmed, unclaimed] = event.tickets;
    const ids = await ledger.accept(event, [
      { ticket: pending, item: claim(pending) },
      { ticket: confirmed, item: claim(confirmed) },
    ]);
    await ledger.sql(`UPDATE chain_actions SET status = 'confirmed' WHERE id = $1`, [ids[1]]);
    expect(await sut.claimsNotFinal([pending.tokenId, confirmed.tokenId, unclaimed.tokenId])).toEqual(new Set([pending.tokenId]));
    expect(await sut.claimsNotFinal([])).toEqual(new Set());
  });

  it("says whether any ticket was ever claimed", async () => {
    const before = await sut.anyClaimAccepted();
    const event = await ledger.ownShardEvent(1);
    await ledger.sql(`UPDATE tickets SET checked_in = true, claimed = true WHERE id = $1`, [event.tickets[0].ref]);
    expect([before, await sut.anyClaimAccepted()]).toEqual([false, true]);
  });
});
