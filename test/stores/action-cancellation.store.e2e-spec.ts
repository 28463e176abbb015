import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { ActionCancellationStore } from "../../src/ledger/cancellation/action-cancellation.store";
import type { RegistryBatchItem } from "../../src/registry";
import { checkIn, claim, registration, sale, type SeededTicket, WALLET, WriterLedger } from "../support/writer-ledger";

/**
 * A cancelled action leaves its ticket or event as the actions that remain make it, and an action a
 * later one depends on is not cancelled.
 */

let ledger: WriterLedger;
let sut: ActionCancellationStore;
let organizationId: string;

beforeAll(async () => {
  ledger = await WriterLedger.open();
  sut = new ActionCancellationStore(ledger.dataSource);
  organizationId = ledger.organization;
});

afterAll(async () => {
  await ledger?.close();
});

const resale = (ticket: SeededTicket, price: string, orderTime: bigint): RegistryBatchItem => ({ action: "resold", tokenId: ticket.tokenId, price, orderTime });

/** A ticket with these actions accepted, and the state the acceptances left it in. */
async function ticketWith(items: ((ticket: SeededTicket) => RegistryBatchItem)[], state: Record<string, unknown>) {
  const event = await ledger.ownShardEvent(1);
  const ticket = event.tickets[0];
  const ids = await ledger.accept(
    event,
    items.map((item) => ({ ticket, item: item(ticket) })),
  );
  const sets = Object.keys(state).map((column, index) => `${column} = $${index + 2}`);
  if (sets.length > 0) await ledger.sql(`UPDATE tickets SET ${sets.join(", ")} WHERE id = $1`, [ticket.ref, ...Object.values(state)]);
  return { event, ticket, ids };
}

async function ticketRow(ticket: SeededTicket) {
  const [row] = await ledger.sql<Record<string, unknown>>(
    `SELECT checked_in, invalidated, claimed, claimed_to, resales, price, order_time::text, released_at IS NOT NULL AS released FROM tickets WHERE id = $1`,
    [ticket.ref],
  );
  return row;
}

describe("ActionCancellationStore.cancel", () => {
  it("cancels a waiting claim: the ticket is checked in and unclaimed again", async () => {
    const { ticket, ids } = await ticketWith([sale, checkIn, (t) => claim(t, WALLET)], { checked_in: true, claimed: true, claimed_to: WALLET });
    expect(await sut.cancel(organizationId, ids[2])).toEqual({ outcome: "cancelled" });
    expect(await ticketRow(ticket)).toMatchObject({ checked_in: true, claimed: false, claimed_to: null, released: false });
    expect((await ledger.actionRows([ids[2]]))[0].status).toBe("cancelled");
  });

  it("cancels a resale: one resale less, and the price and order time of the one before", async () => {
    const { ticket, ids } = await ticketWith([sale, (t) => resale(t, "20.00", 7n), (t) => resale(t, "30.00", 8n)], {
      resales: 2,
      price: "30.00",
      order_time: 8,
    });
    await sut.cancel(organizationId, ids[2]);
    expect(await ticketRow(ticket)).toMatchObject({ resales: 1, price: "20.00", order_time: "7" });
  });

  it("cancels one of two check-ins: the ticket stays checked in; cancelling the other too, it is not", async () => {
    const { ticket, ids } = await ticketWith([sale, checkIn, checkIn], { checked_in: true });
    await sut.cancel(organizationId, ids[1]);
    expect(await ticketRow(ticket)).toMatchObject({ checked_in: true });
    await sut.cancel(organizationId, ids[2]);
    expect(await ticketRow(ticket)).toMatchObject({ checked_in: false });
  });

  it("cancels a sale without later actions: the ticket is released and counts unsold", async () => {
    const { ticket, ids } = await ticketWith([sale], {});
    expect(await sut.cancel(organizationId, ids[0])).toEqual({ outcome: "cancelled" });
    expect(await ticketRow(ticket)).toMatchObject({ released: true });
  });

  it("refuses a sale with a later action on its ticket and a check-in with a claim after it, naming the later action", async () => {
    const { ids } = await ticketWith([sale, checkIn, (t) => claim(t, WALLET)], { checked_in: true, claimed: true, claimed_to: WALLET });
    expect(await sut.cancel(organizationId, ids[0])).toMatchObject({ outcome: "blocked", blockedBy: ids[1] });
    expect(await sut.cancel(organizationId, ids[1])).toMatchObject({ outcome: "blocked", blockedBy: ids[2] });
    expect((await ledger.actionRows(ids)).map((row) => row.status)).toEqual(["waiting_broadcast", "waiting_broadcast", "waiting_broadcast"]);
  });

  it("refuses an action signed already, and one of another organization is not found", async () => {
    const { ids } = await ticketWith([sale], {});
    await ledger.sql(`UPDATE chain_actions SET status = 'pending' WHERE id = $1`, [ids[0]]);
    expect(await sut.cancel(organizationId, ids[0])).toEqual({ outcome: "not_cancellable", status: "pending" });
    expect(await sut.cancel("00000000-0000-0000-0000-000000000000", ids[0])).toEqual({ outcome: "not_found" });
  });

  it("cancels an event's cancellation: the event is not cancelled, its tickets as they were; and it blocks withdrawing the registration", async () => {
    const event = await ledger.ownShardEvent(1);
    const ticket = event.tickets[0];
    const ids = await ledger.accept(event, [
      { ticket: null, item: registration(event) },
      { ticket, item: sale(ticket) },
      { ticket, item: checkIn(ticket) },
      { ticket: null, item: { action: "cancelEvent", eventIndex: event.eventIndex } },
    ]);
    await ledger.sql(`UPDATE events SET cancelled_at = now() WHERE id = $1`, [event.ref]);
    await ledger.sql(`UPDATE tickets SET checked_in = true WHERE id = $1`, [ticket.ref]);
    const before = await ticketRow(ticket);

    expect(await sut.cancel(organizationId, ids[0])).toMatchObject({ outcome: "blocked", blockedBy: ids[1] });
    expect(await sut.cancel(organizationId, ids[3])).toEqual({ outcome: "cancelled" });

    const [row] = await ledger.sql<{ cancelled: boolean }>(`SELECT cancelled_at IS NOT NULL AS cancelled FROM events WHERE id = $1`, [event.ref]);
    expect(row.cancelled).toBe(false);
    expect(await ticketRow(ticket)).toEqual(before);
    expect((await ledger.actionRows(ids)).map((action) => action.status)).toEqual(["waiting_broadcast", "waiting_broadcast", "waiting_broadcast", "cancelled"]);
  });

  it("cancels an event update: its details go back to the registration's", async () => {
    const event = await ledger.ownShardEvent(0);
    const registered = registration(event);
    const update: RegistryBatchItem = {
      action: "updateEvent",
      eventIndex: event.eventIndex,
      details: {
        ...(registered as Extract<RegistryBatchItem, { action: "registerEvent" }>).details,
        name: "Renamed",
        imageUrl: "https://img.example.com/2.png",
      },
    };
    const ids = await ledger.accept(event, [
      { ticket: null, item: registered },
      { ticket: null, item: update },
    ]);
    // A description the payloads do not account for (their metadata hash unchanged) is not theirs to give back: it stays.
    await ledger.sql(`UPDATE events SET name = 'Renamed', image_url = 'https://img.example.com/2.png', description = 'Kept' WHERE id = $1`, [event.ref]);
    await sut.cancel(organizationId, ids[1]);
    const [row] = await ledger.sql<{ name: string; image_url: string; description: string; released: boolean }>(
      `SELECT name, image_url, description, released_at IS NOT NULL AS released FROM events WHERE id = $1`,
      [event.ref],
    );
    expect(row).toEqual({ name: "n", image_url: "", description: "Kept", released: false });
    // The registration alone now: cancelled, it releases the event.
    expect(await sut.cancel(organizationId, ids[0])).toEqual({ outcome: "cancelled" });
    const [released] = await ledger.sql<{ released: boolean }>(`SELECT released_at IS NOT NULL AS released FROM events WHERE id = $1`, [event.ref]);
    expect(released.released).toBe(true);
  });

  it("refuses an event update that changed the event's off-chain metadata, whose earlier form the ledger no longer has", async () => {
    const event = await ledger.ownShardEvent(0);
    const registered = registration(event) as Extract<RegistryBatchItem, { action: "registerEvent" }>;
    const update: RegistryBatchItem = {
      action: "updateEvent",
      eventIndex: event.eventIndex,
      details: { ...registered.details, metadataHash: "0x" + "ab".repeat(32) },
    };
    const ids = await ledger.accept(event, [
      { ticket: null, item: registered },
      { ticket: null, item: update },
    ]);
    expect(await sut.cancel(organizationId, ids[1])).toEqual({ outcome: "blocked", blockedBy: null, reason: expect.stringContaining("off-chain metadata") });
    expect((await ledger.actionRows([ids[1]]))[0].status).toBe("waiting_broadcast");
  });

  it("refuses an updateTicket: the ticket's earlier metadata is gone", async () => {
    const { ids } = await ticketWith([sale, (t) => ({ action: "updateTicket", tokenId: t.tokenId, metadataHash: "0x" + "cd".repeat(32) })], {});
    expect(await sut.cancel(organizationId, ids[1])).toEqual({ outcome: "blocked", blockedBy: null, reason: expect.stringContaining("updateTicket") });
  });
});
