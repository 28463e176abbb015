import { describe, expect, it } from "vitest";

import { anEvent, ORGANIZATION } from "../../test/support/acceptance-fixture";
import { AcceptanceConflict } from "../ledger/acceptance-conflict";
import type { EventEntity } from "./entities/event.entity";
import { type EventWorkingSetStore, EventWorkingSet } from "./event-working-set";

/** A store over `rows` that records what the working set writes. */
function storeOf(rows: EventEntity[]) {
  const writes = {
    saved: [] as EventEntity[],
    counts: [] as { id: string; count: bigint }[],
    lockedIds: [] as string[],
    readIds: [] as string[],
    readRefs: [] as string[],
  };
  const store: EventWorkingSetStore = {
    lockForAcceptance: async (_, eventIds) => {
      writes.lockedIds.push(...eventIds);
      return rows.filter((row) => eventIds.includes(row.eventId));
    },
    readForAcceptance: async (_, eventIds) => {
      writes.readIds.push(...eventIds);
      return rows.filter((row) => eventIds.includes(row.eventId));
    },
    readByRefsForAcceptance: async (_, ids) => {
      writes.readRefs.push(...ids);
      return rows.filter((row) => ids.includes(row.id));
    },
    reserveRegistryIndexes: async (count) => Array.from({ length: count }, (_, i) => 100n + BigInt(i)),
    insertNew: async (events) => events.length,
    saveChanges: async (events) => {
      writes.saved.push(...events);
    },
    addTicketsSold: async (sales) => {
      writes.counts.push(...sales);
    },
  };
  return { store, writes };
}

describe("EventWorkingSet: sales", () => {
  it("reads the events it only sells in without a lock, hands out the reserved serials, and counts the sales at settle, not as a change of the row", async () => {
    const event = anEvent({ eventId: "on-sale", ticketsSold: 40n, lastSerial: 90n });
    const { store, writes } = storeOf([event]);
    const events = new EventWorkingSet(store, ORGANIZATION.id);
    await events.load([], 0, { eventIds: ["on-sale"], serials: new Map([["on-sale", { first: 91n, last: 93n }]]) });
    expect(writes).toMatchObject({ lockedIds: [], readIds: ["on-sale"] });
    const found = events.find("on-sale")!;
    expect([events.sell(found), events.sell(found), events.sell(found)]).toEqual([91n, 92n, 93n]);
    await events.flush();
    expect(writes.saved).toEqual([]);
    await events.settle();
    expect(writes.counts).toEqual([{ id: event.id, count: 3n }]);
    // Beyond its reservation, an unlocked event has no serial to give: the acceptance starts over.
    expect(() => events.sell(found)).toThrow(AcceptanceConflict);
  });

  it("an event read without a lock and without a reservation (created after the reservation) starts the acceptance over", async () => {
    const { store } = storeOf([anEvent({ eventId: "late" })]);
    const events = new EventWorkingSet(store, ORGANIZATION.id);
    await events.load([], 0, { eventIds: ["late"], serials: new Map() });
    expect(() => events.sell(events.find("late")!)).toThrow(AcceptanceConflict);
  });

  it("an event the request also changes is locked: its sales use the reservation, else its last serial, and its row is saved with its count", async () => {
    // Its last serial, read under the lock, includes the range reserved before.
    const event = anEvent({ eventId: "changed", ticketsSold: 5n, lastSerial: 8n });
    const { store, writes } = storeOf([event]);
    const events = new EventWorkingSet(store, ORGANIZATION.id);
    await events.load(["changed"], 0, { eventIds: ["changed"], serials: new Map([["changed", { first: 8n, last: 8n }]]) });
    expect(writes).toMatchObject({ lockedIds: ["changed"], readIds: [] });
    const found = events.find("changed")!;
    expect([events.sell(found), events.sell(found)]).toEqual([8n, 9n]);
    expect(found).toMatchObject({ ticketsSold: 7n, lastSerial: 9n });
    await events.flush();
    await events.settle();
    expect(writes.saved).toEqual([found]);
    expect(writes.counts).toEqual([]);
  });

  it("a change of an event read without a lock is a programming error", async () => {
    const { store } = storeOf([anEvent({ eventId: "read" })]);
    const events = new EventWorkingSet(store, ORGANIZATION.id);
    await events.load([], 0, { eventIds: ["read"], serials: new Map() });
    expect(() => events.touch(events.find("read")!)).toThrow(/not locked/);
  });
});

describe("EventWorkingSet: the events of tickets", () => {
  it("reads, without a lock, only the events of tickets it does not hold yet, and finds them by row id", async () => {
    const held = anEvent({ eventId: "held" });
    const other = anEvent({ eventId: "other", cancelledAt: new Date(1_000) });
    const { store, writes } = storeOf([held, other]);
    const events = new EventWorkingSet(store, ORGANIZATION.id);
    await events.load(["held"], 0);
    const heldInMemory = events.find("held")!;
    heldInMemory.cancelledAt = new Date(2_000);

    await events.loadRefs([held.id, other.id, other.id]);

    expect(writes.readRefs).toEqual([other.id]);
    // The event the request holds keeps what the request did to it: a ticket action after its cancellation sees it.
    expect(events.findByRef(held.id)).toBe(heldInMemory);
    expect(events.findByRef(other.id)?.cancelledAt).toEqual(new Date(1_000));
    expect(() => events.touch(events.findByRef(other.id)!)).toThrow(/not locked/);
  });
});
