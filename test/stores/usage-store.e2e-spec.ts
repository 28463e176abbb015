import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";

import { BroadcastStore } from "../../src/chain/writer/broadcast/broadcast.store";
import { FinalizationStore } from "../../src/chain/writer/receipts/finalization.store";
import type { MinedReceipt } from "../../src/chain/writer/receipts/mined-receipt";
import type { PendingAction } from "../../src/chain/writer/sending/pending-action";
import { SendingStore } from "../../src/chain/writer/sending/sending.store";
import type { OpenTransaction } from "../../src/chain/writer/signed-transaction";
import { UsageQuery } from "../../src/usage/usage-query";
import { statementOf } from "../../src/usage/usage-statement";
import { UsageStore } from "../../src/usage/usage.store";
import {
  CHAIN,
  chainHolds,
  checkIn,
  fakeSignature,
  newSigner,
  registration,
  sale,
  type SeededEvent,
  SHARD_COUNT,
  WriterLedger,
} from "../support/writer-ledger";

/**
 * The usage statement's store against a migrated database, with the ledger written as the API and
 * the chain writer write it: acceptances through ActionRecorder, batches committed by SendingStore
 * with their planned gas, receipts closed by FinalizationStore.
 */

const BLOCK_HASH = "0x" + "c3".repeat(32);
const GAS_PRICE = 31_415_926_535n;

let a: WriterLedger;
let b: WriterLedger;
let sending: SendingStore;
let broadcast: BroadcastStore;
let finalization: FinalizationStore;
let sut: UsageStore;

beforeAll(async () => {
  a = await WriterLedger.open();
  b = await a.otherOrganization("ticketeer-usage-b");
  sending = new SendingStore(a.dataSource);
  broadcast = new BroadcastStore(a.dataSource);
  finalization = new FinalizationStore(a.dataSource);
  sut = new UsageStore(a.dataSource);
});

afterAll(async () => {
  await a?.close();
});

const today = () => new Date().toISOString().slice(0, 10);
const query = (groupBy: "day" | "event" = "day", from = today(), to = today()) => UsageQuery.parse({ from, to, groupBy }, 366);
const ticketeerOf = async (ledger: WriterLedger) =>
  (await ledger.sql<{ ticketeer_id: string }>(`SELECT ticketeer_id FROM organizations WHERE id = $1`, [ledger.organization]))[0].ticketeer_id;

/** The waiting actions of these events' shards, in one transaction with the given planned gas; its open attempt. */
async function sentTogether(events: readonly SeededEvent[], plannedGas: (action: PendingAction, index: number) => number): Promise<OpenTransaction> {
  const signer = newSigner();
  await sending.ensureSigner(signer, CHAIN.chainId, 0n);
  const waiting = (await Promise.all(events.map((event) => sending.waitingActions(SHARD_COUNT, Number(event.eventIndex), 100)))).flat();
  const sent = await sending.commitNewTransaction(signer, waiting, async (nonce) => fakeSignature(signer, nonce, waiting.length), waiting.map(plannedGas));
  await broadcast.markBroadcast(sent.id);
  return (await broadcast.openTransactions(signer)).find((tx) => tx.id === sent.id)!;
}

const receiptOf = (mined: OpenTransaction, status: 0 | 1, gasUsed: bigint): MinedReceipt => ({
  hash: mined.hash,
  status,
  blockNumber: 7,
  blockHash: BLOCK_HASH,
  gasUsed,
  effectiveGasPrice: GAS_PRICE,
  logs: [],
});

describe("UsageStore with the ledger's writers", () => {
  it("counts two organizations' actions carried in one batch, and splits its receipt exactly, by planned gas", async () => {
    const eventA = await a.ownShardEvent(3);
    const eventB = await b.ownShardEvent(1);
    await a.accept(eventA, [{ ticket: null, item: registration(eventA) }, ...eventA.tickets.map((ticket) => ({ ticket, item: sale(ticket) }))]);
    await b.accept(eventB, [{ ticket: eventB.tickets[0], item: sale(eventB.tickets[0]) }]);
    // newEvent 100,000; each sale 10,000 (A's three and B's one); the receipt's 70,001 gas is not a multiple of the weights' sum.
    const mined = await sentTogether([eventA, eventB], (action) => (action.item.action === "registerEvent" ? 100_000 : 10_000));
    const gasUsed = 70_001n;

    const closed = await finalization.markConfirmed(
      mined,
      receiptOf(mined, 1, gasUsed),
      [{ batchIndex: 3, code: "onchain_ticket_exists", message: "refused" }],
      new Map(),
      CHAIN,
      chainHolds(),
    );

    expect(closed?.gasByOrganization).toEqual(
      new Map([
        [await ticketeerOf(a), 65_001n],
        [await ticketeerOf(b), 5_000n],
      ]),
    );
    const statementA = statementOf("a", query(), await sut.organizationSums(a.organization, query()));
    const statementB = statementOf("b", query(), await sut.organizationSums(b.organization, query()));
    expect(statementA.groups).toHaveLength(1);
    const linesA = statementA.groups[0].actions.map(({ kind, accepted, confirmed, failed, transactions, gas, feeWei }) => ({
      kind,
      accepted,
      confirmed,
      failed,
      transactions,
      gas,
      feeWei,
    }));
    // 70,001 × 100,000 / 140,000 = 50,000.71 and 70,001 × 10,000 / 140,000 = 5,000.07 each: the unit left goes to the newEvent.
    expect(linesA).toEqual([
      { kind: "newEvent", accepted: 1, confirmed: 1, failed: 0, transactions: 1, gas: "50001", feeWei: (50_001n * GAS_PRICE).toString() },
      { kind: "sold", accepted: 3, confirmed: 2, failed: 1, transactions: 1, gas: "15000", feeWei: (15_000n * GAS_PRICE).toString() },
    ]);
    expect(statementA.totals).toMatchObject({ accepted: 4, confirmed: 3, failed: 1, transactions: 1, gas: "65001" });
    expect(statementB.totals).toEqual({ accepted: 1, confirmed: 1, failed: 0, transactions: 1, gas: "5000", feeWei: (5_000n * GAS_PRICE).toString() });
    expect(BigInt(statementA.totals.gas) + BigInt(statementB.totals.gas)).toBe(gasUsed);
    expect(BigInt(statementA.totals.feeWei) + BigInt(statementB.totals.feeWei)).toBe(gasUsed * GAS_PRICE);
    const [transaction] = await a.sql<{ effective_gas_price: string }>(`SELECT effective_gas_price FROM chain_transactions WHERE id = $1`, [mined.id]);
    expect(transaction.effective_gas_price).toBe(GAS_PRICE.toString());
  });

  it("charges a reverted batch's gas to the actions it carried, which go back in line and count as neither confirmed nor failed", async () => {
    const event = await b.ownShardEvent(2);
    await b.accept(
      event,
      event.tickets.map((ticket) => ({ ticket, item: sale(ticket) })),
    );
    const before = statementOf("b", query("event"), await sut.organizationSums(b.organization, query("event")));
    const mined = await sentTogether([event], () => 12_345);

    await finalization.requeueReverted(mined, receiptOf(mined, 0, 30_001n), 3, CHAIN, chainHolds());

    const after = statementOf("b", query("event"), await sut.organizationSums(b.organization, query("event")));
    const group = after.groups.find((entry) => entry.eventId === `event-${event.eventIndex}`);
    expect(group?.actions).toEqual([
      { kind: "sold", accepted: 2, confirmed: 0, failed: 0, transactions: 1, gas: "30001", feeWei: (30_001n * GAS_PRICE).toString() },
    ]);
    expect(after.totals.transactions).toBe(before.totals.transactions + 1);
    expect(after.groups.map((entry) => entry.eventId)).toEqual([...after.groups.map((entry) => entry.eventId!)].sort());
  });

  it("charges an item that goes back in line for order, and counts it once it is final in a later batch", async () => {
    const event = await a.ownShardEvent(1);
    const [ticket] = event.tickets;
    await a.accept(event, [{ ticket: null, item: registration(event) }]);
    await a.accept(event, [{ ticket, item: sale(ticket) }]);
    await a.accept(event, [{ ticket, item: checkIn(ticket) }]);
    const eventQuery = query("event");
    const line = async (kind: string) =>
      statementOf("a", eventQuery, await sut.organizationSums(a.organization, eventQuery))
        .groups.find((entry) => entry.eventId === `event-${event.eventIndex}`)
        ?.actions.find((entry) => entry.kind === kind);
    // The check-in alone first: refused as TicketUnknown while its sale is still waiting, it goes back in line.
    const signer = newSigner();
    await sending.ensureSigner(signer, CHAIN.chainId, 0n);
    const [registered, sold, checkedIn] = await sending.waitingActions(SHARD_COUNT, Number(event.eventIndex), 10);
    const early = await sending.commitNewTransaction(signer, [checkedIn], async (nonce) => fakeSignature(signer, nonce, 1), [4_000]);
    await broadcast.markBroadcast(early.id);
    const [earlyOpen] = await broadcast.openTransactions(signer);
    await finalization.markConfirmed(
      earlyOpen,
      receiptOf(earlyOpen, 1, 40_000n),
      [{ batchIndex: 0, code: "onchain_ticket_unknown", message: "early" }],
      new Map(),
      CHAIN,
      chainHolds(),
    );
    expect(await line("scanned")).toMatchObject({ accepted: 1, confirmed: 0, failed: 0, transactions: 1, gas: "40000" });

    const later = await sending.commitNewTransaction(
      signer,
      [registered, sold, checkedIn],
      async (nonce) => fakeSignature(signer, nonce, 3),
      [100_000, 10_000, 4_000],
    );
    await broadcast.markBroadcast(later.id);
    const laterOpen = (await broadcast.openTransactions(signer)).find((tx) => tx.id === later.id)!;
    await finalization.markConfirmed(laterOpen, receiptOf(laterOpen, 1, 114_000n), [], new Map(), CHAIN, chainHolds());

    expect(await line("scanned")).toMatchObject({ accepted: 1, confirmed: 1, failed: 0, transactions: 2, gas: "44000" });
    expect(await line("newEvent")).toMatchObject({ accepted: 1, confirmed: 1, transactions: 1, gas: "100000" });
  });

  it("groups an eventId registered again after its registration was cancelled as one event", async () => {
    const first = await a.ownShardEvent(0);
    await a.accept(first, [{ ticket: null, item: registration(first) }]);
    await a.sql(`UPDATE chain_actions SET status = 'cancelled' WHERE event_ref = $1`, [first.ref]);
    await a.sql(`UPDATE events SET released_at = now() WHERE id = $1`, [first.ref]);
    const again = await a.ownShardEvent(0);
    await a.sql(`UPDATE events SET event_id = $2 WHERE id = $1`, [again.ref, `event-${first.eventIndex}`]);
    await a.accept(again, [{ ticket: null, item: registration(again) }]);

    const statement = statementOf("a", query("event"), await sut.organizationSums(a.organization, query("event")));

    const groups = statement.groups.filter((group) => group.eventId === `event-${first.eventIndex}`);
    expect(groups).toHaveLength(1);
    expect(groups[0].actions).toEqual([{ kind: "newEvent", accepted: 2, confirmed: 0, failed: 0, transactions: 0, gas: "0", feeWei: "0" }]);
  });

  it("counts nothing outside the range: from inclusive, to exclusive", async () => {
    const yesterday = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
    const past = UsageQuery.parse({ from: "2020-01-01", to: yesterday }, 100_000);
    expect(await sut.organizationSums(a.organization, past)).toEqual([]);
    expect(await sut.allSums(past)).toEqual([
      {
        level: "all",
        organizationId: null,
        ticketeerId: null,
        group: null,
        kind: null,
        accepted: 0,
        confirmed: 0,
        failed: 0,
        transactions: 0,
        gas: 0n,
        feeWei: 0n,
      },
    ]);
    const upToNow = UsageQuery.parse({ from: today(), to: new Date(Date.now() + 60_000).toISOString() }, 366);
    expect(statementOf("a", upToNow, await sut.organizationSums(a.organization, upToNow)).totals.accepted).toBeGreaterThan(0);
  });

  it("sums every organization, each as its own statement sums it, and all of them together", async () => {
    const all = await sut.allSums(query());
    const total = all.find((sum) => sum.level === "all")!;
    const perOrganization = all.filter((sum) => sum.level === "organization");
    expect(perOrganization.map((sum) => sum.ticketeerId).sort()).toEqual([await ticketeerOf(a), await ticketeerOf(b)].sort());
    expect(perOrganization.reduce((sum, entry) => sum + entry.gas, 0n)).toBe(total.gas);
    expect(perOrganization.reduce((sum, entry) => sum + entry.feeWei, 0n)).toBe(total.feeWei);
    const receipts = await a.sql<{ gas: string; fee: string }>(
      `SELECT sum(gas_used)::text AS gas, sum(gas_used * effective_gas_price)::text AS fee FROM chain_transactions WHERE status IN ('confirmed', 'reverted')`,
    );
    expect([total.gas.toString(), total.feeWei.toString()]).toEqual([receipts[0].gas, receipts[0].fee]);
    const own = await sut.organizationSums(b.organization, query());
    expect(own.find((sum) => sum.level === "organization")).toEqual(perOrganization.find((sum) => sum.organizationId === b.organization));
  });
});

describe("UsageStore's reads at scale", () => {
  it("reads one organization's range through its index, and every organization's through the time index, not the whole table", async () => {
    // A year of another 50 organizations' entries, appended in time order as the service appends them.
    await a.sql(`
      INSERT INTO usage_entries (organization_id, recorded_at, event_ref, kind, accepted)
      SELECT ('00000000-0000-4000-8000-' || lpad((n % 50)::text, 12, '0'))::uuid, timestamptz '2025-01-01' + n * interval '3 minutes',
             gen_random_uuid(), 'sold', 1
        FROM generate_series(1, 175000) AS n`);
    await a.sql(`ANALYZE usage_entries`);
    const reads = vi.spyOn(a.dataSource, "query");
    const day = UsageQuery.parse({ from: "2025-06-01", to: "2025-06-01" }, 366);
    await sut.organizationSums(a.organization, day);
    await sut.allSums(day);
    const statements = [...reads.mock.calls];
    reads.mockRestore();
    const plans: string[] = [];
    for (const [sql, parameters] of statements) {
      const plan = await a.dataSource.query<{ "QUERY PLAN": string }[]>(`EXPLAIN ${sql}`, parameters);
      plans.push(plan.map((row) => row["QUERY PLAN"]).join("\n"));
    }
    expect(plans[0]).toMatch(/usage_entries_organization_idx/);
    expect(plans[1]).toMatch(/usage_entries_recorded_brin/);
    for (const plan of plans) expect(plan).not.toMatch(/Seq Scan on usage_entries/);
    const allDay = await sut.allSums(day);
    expect(allDay.find((sum) => sum.level === "all")?.accepted).toBe(480);
  });
});
