import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { uuidv7 } from "../../src/common/uuid-v7";
import { EventEntity } from "../../src/events/entities/event.entity";
import { EventsStore } from "../../src/events/events.store";
import { tokenIdOf } from "../../src/registry";
import { TicketEntity } from "../../src/tickets/entities/ticket.entity";
import { TicketsStore } from "../../src/tickets/tickets.store";
import { id } from "../support/fixtures";
import { openStoreDatabase, type StoreDatabase } from "../support/store-database";

let db: StoreDatabase;
let organizationId: string;
let otherOrganizationId: string;

beforeAll(async () => {
  db = await openStoreDatabase();
  organizationId = await db.organization("ticketeer-a");
  otherOrganizationId = await db.organization("ticketeer-b");
});

afterAll(async () => {
  await db?.close();
});

const inTransaction = <T>(run: (events: EventsStore, tickets: TicketsStore) => Promise<T>) =>
  db.dataSource.transaction((manager) => run(new EventsStore(manager), new TicketsStore(manager)));

async function newEvent(owner: string, eventId = id("event")): Promise<EventEntity> {
  const [eventIndex] = await new EventsStore(db.dataSource.manager).reserveRegistryIndexes(1);
  return Object.assign(new EventEntity(), {
    id: uuidv7(),
    organizationId: owner,
    eventId,
    eventIndex,
    name: "Concert",
    ticketeerName: "",
    currency: "EUR",
    shopUrl: "",
    imageUrl: "",
    description: "",
    ticketImageUrl: "",
    latitude: 52.37,
    longitude: 4.89,
    startTime: 1_900_000_000n,
    endTime: 18_446_744_073_709_551_615n,
    callbackUrl: "https://integrator.example.com/callbacks",
    ticketsSold: 0n,
    lastSerial: 0n,
    cancelledAt: null,
    callbackFailingSince: null,
    callbackDisabledAt: null,
  });
}

function newTicket(event: EventEntity, serial: bigint, ticketId = id("ticket")): TicketEntity {
  return Object.assign(new TicketEntity(), {
    id: uuidv7(),
    organizationId: event.organizationId,
    eventRef: event.id,
    ticketId,
    serial,
    tokenId: tokenIdOf(event.eventIndex, serial),
    price: "49.95",
    uri: "",
    name: "",
    description: "",
    animationUrl: "",
    attributes: [],
    orderTime: 1_750_000_000n,
    checkedIn: false,
    invalidated: false,
    claimed: false,
    claimedTo: null,
    resales: 0,
  });
}

describe("EventsStore", () => {
  it("hands out distinct, increasing registry indexes", async () => {
    const indexes = await new EventsStore(db.dataSource.manager).reserveRegistryIndexes(3);
    expect(indexes).toHaveLength(3);
    expect(indexes[1]).toBeGreaterThan(indexes[0]);
    expect(indexes[2]).toBeGreaterThan(indexes[1]);
  });

  it("inserts new events with every field, the uint64 times exactly", async () => {
    const event = Object.assign(await newEvent(organizationId), { description: "Chamber\tmusic 𝄞", ticketImageUrl: "ipfs://bafy/ticket.png" });
    expect(await inTransaction((events) => events.insertNew([event]))).toBe(1);
    const stored = await new EventsStore(db.dataSource.manager).findByOrganizationAndEventId(organizationId, event.eventId);
    expect(stored).toMatchObject({
      id: event.id,
      eventIndex: event.eventIndex,
      latitude: 52.37,
      endTime: 18_446_744_073_709_551_615n,
      ticketsSold: 0n,
      description: "Chamber\tmusic 𝄞",
      ticketImageUrl: "ipfs://bafy/ticket.png",
    });
  });

  it("reports an eventId another acceptance created first as not inserted", async () => {
    const first = await newEvent(organizationId);
    await inTransaction((events) => events.insertNew([first]));
    const again = await newEvent(organizationId, first.eventId);
    const fresh = await newEvent(organizationId);
    expect(await inTransaction((events) => events.insertNew([again, fresh]))).toBe(1);
  });

  it("finds and locks only the organization's own events", async () => {
    const mine = await newEvent(organizationId);
    const theirs = await newEvent(otherOrganizationId, mine.eventId);
    await inTransaction((events) => events.insertNew([mine, theirs]));
    const locked = await inTransaction((events) => events.lockForAcceptance(organizationId, [mine.eventId, "no-such-event"]));
    expect(locked.map((event) => event.id)).toEqual([mine.id]);
    expect(await new EventsStore(db.dataSource.manager).findByOrganizationAndEventId(otherOrganizationId, mine.eventId)).toMatchObject({ id: theirs.id });
  });

  it("holds the row lock until the acceptance's transaction ends", async () => {
    const event = await newEvent(organizationId);
    await inTransaction((events) => events.insertNew([event]));
    await inTransaction(async (events) => {
      await events.lockForAcceptance(organizationId, [event.eventId]);
      const other = db.dataSource.createQueryRunner();
      try {
        await other.connect();
        await expect(other.query(`SELECT id FROM events WHERE id = $1 FOR UPDATE NOWAIT`, [event.id])).rejects.toMatchObject({
          driverError: { code: "55P03" },
        });
      } finally {
        await other.release();
      }
    });
  });

  it("saves the accepted fields of changed events", async () => {
    const event = await newEvent(organizationId);
    await inTransaction((events) => events.insertNew([event]));
    await inTransaction((events) =>
      events.saveChanges([
        Object.assign(event, {
          imageUrl: "https://img.example.com/1.png",
          ticketsSold: 12n,
          lastSerial: 13n,
          description: "New",
          ticketImageUrl: "ar://tx/1.png",
        }),
      ]),
    );
    expect(await new EventsStore(db.dataSource.manager).findById(event.id)).toMatchObject({
      imageUrl: "https://img.example.com/1.png",
      description: "New",
      ticketImageUrl: "ar://tx/1.png",
      ticketsSold: 12n,
      lastSerial: 13n,
    });
  });

  it("reserves serials past each event's last one, for the organization's own events only, without holding the rows", async () => {
    const [a, b] = [await newEvent(organizationId), await newEvent(organizationId)];
    const theirs = await newEvent(otherOrganizationId, a.eventId);
    await inTransaction((events) => events.insertNew([a, b, Object.assign(theirs, { lastSerial: 50n })]));
    const store = new EventsStore(db.dataSource.manager);
    const first = await store.reserveSerials(
      organizationId,
      new Map([
        [a.eventId, 100],
        [b.eventId, 1],
        ["no-such-event", 5],
      ]),
    );
    expect(first).toEqual(
      new Map([
        [a.eventId, { first: 1n, last: 100n }],
        [b.eventId, { first: 1n, last: 1n }],
      ]),
    );
    expect(await store.reserveSerials(organizationId, new Map([[a.eventId, 3]]))).toEqual(new Map([[a.eventId, { first: 101n, last: 103n }]]));
    expect(await store.findById(a.id)).toMatchObject({ lastSerial: 103n, ticketsSold: 0n });
    expect(await store.findById(theirs.id)).toMatchObject({ lastSerial: 50n });
    // Committed at once: nothing holds the row afterwards.
    await expect(db.dataSource.query(`SELECT id FROM events WHERE id = $1 FOR UPDATE NOWAIT`, [a.id])).resolves.toHaveLength(1);
  });

  it("concurrent reservations of one event get disjoint ranges", async () => {
    const event = await newEvent(organizationId);
    await inTransaction((events) => events.insertNew([event]));
    const store = new EventsStore(db.dataSource.manager);
    const ranges = await Promise.all(Array.from({ length: 8 }, () => store.reserveSerials(organizationId, new Map([[event.eventId, 10]]))));
    const firsts = ranges.map((range) => range.get(event.eventId)!.first).sort((x, y) => (x < y ? -1 : 1));
    expect(firsts).toEqual(Array.from({ length: 8 }, (_, i) => BigInt(i * 10 + 1)));
  });

  it("reads events without locking them, and records sales apart without writing or locking the event", async () => {
    const event = await newEvent(organizationId);
    await inTransaction((events) => events.insertNew([Object.assign(event, { ticketsSold: 7n })]));
    await inTransaction(async (events) => {
      expect((await events.readForAcceptance(organizationId, [event.eventId])).map((row) => row.id)).toEqual([event.id]);
      await events.addTicketsSold([{ id: event.id, count: 100n }]);
      await expect(db.dataSource.query(`SELECT id FROM events WHERE id = $1 FOR UPDATE NOWAIT`, [event.id])).resolves.toHaveLength(1);
    });
    await inTransaction((events) => events.addTicketsSold([{ id: event.id, count: 5n }]));
    const store = new EventsStore(db.dataSource.manager);
    const stored = await store.findById(event.id);
    expect(stored.ticketsSold).toBe(7n);
    expect(await store.ticketsSoldOf(stored)).toBe(112n);
    const other = await newEvent(organizationId);
    await inTransaction((events) => events.insertNew([other]));
    expect(await store.ticketsSoldOf(await store.findById(other.id))).toBe(0n);
  });

  it("keeps when an event was cancelled, as inserted and as saved, and reads the events of tickets by row id, the organization's only", async () => {
    const cancelledAt = new Date("2026-11-23T10:00:00.000Z");
    const [born, later, theirs] = [await newEvent(organizationId), await newEvent(organizationId), await newEvent(otherOrganizationId)];
    await inTransaction((events) => events.insertNew([Object.assign(born, { cancelledAt }), later, theirs]));
    const store = new EventsStore(db.dataSource.manager);
    expect((await store.findById(born.id)).cancelledAt).toEqual(cancelledAt);
    expect((await store.findById(later.id)).cancelledAt).toBeNull();

    await inTransaction(async (events) => {
      const [locked] = await events.lockForAcceptance(organizationId, [later.eventId]);
      await events.saveChanges([Object.assign(locked, { cancelledAt })]);
    });
    expect((await store.findById(later.id)).cancelledAt).toEqual(cancelledAt);
    await inTransaction(async (events) => {
      const [locked] = await events.lockForAcceptance(organizationId, [later.eventId]);
      await events.saveChanges([Object.assign(locked, { cancelledAt: null })]);
    });
    expect((await store.findById(later.id)).cancelledAt).toBeNull();

    await inTransaction(async (events) => {
      const read = await events.readByRefsForAcceptance(organizationId, [born.id, later.id, theirs.id]);
      expect(read.map((row) => row.id).sort()).toEqual([born.id, later.id].sort());
      // Read without a lock: an acceptance of a ticket never holds its event's row.
      await expect(db.dataSource.query(`SELECT id FROM events WHERE id = $1 FOR UPDATE NOWAIT`, [born.id])).resolves.toHaveLength(1);
    });
  });
});

describe("TicketsStore", () => {
  it("copies new tickets with every column and reads them back", async () => {
    const event = await newEvent(organizationId);
    const metadata = {
      name: 'Seat "12A"',
      description: "Front row\nleft",
      animationUrl: "ipfs://bafy/1.mp4",
      attributes: [
        { traitType: "Seat", value: '12A \\ "x"' },
        { traitType: "Row", value: 1.5, displayType: "number" as const },
      ],
    };
    const ticket = Object.assign(newTicket(event, 1n), {
      checkedIn: true,
      claimed: true,
      claimedTo: "0x52908400098527886E0F7030069857D2E4169EE7",
      ...metadata,
    });
    await inTransaction(async (events, tickets) => {
      await events.insertNew([event]);
      await tickets.insertNew([ticket, newTicket(event, 2n)]);
    });
    const stored = await new TicketsStore(db.dataSource.manager).findByOrganizationAndTicketId(organizationId, ticket.ticketId);
    expect(stored).toMatchObject({
      id: ticket.id,
      serial: 1n,
      tokenId: ticket.tokenId,
      checkedIn: true,
      claimed: true,
      claimedTo: ticket.claimedTo,
      orderTime: 1_750_000_000n,
      ...metadata,
    });
  });

  it("fails the copy with a unique violation for a ticketId that exists", async () => {
    const event = await newEvent(organizationId);
    const ticket = newTicket(event, 1n);
    await inTransaction(async (events, tickets) => {
      await events.insertNew([event]);
      await tickets.insertNew([ticket]);
    });
    const again = newTicket(event, 2n, ticket.ticketId);
    await expect(inTransaction((_events, tickets) => tickets.insertNew([again]))).rejects.toMatchObject({ code: "23505" });
  });

  it("locks only the organization's own tickets, and saves changes", async () => {
    const event = await newEvent(organizationId);
    const ticket = newTicket(event, 1n);
    await inTransaction(async (events, tickets) => {
      await events.insertNew([event]);
      await tickets.insertNew([ticket]);
    });
    expect(await inTransaction((_events, tickets) => tickets.lockForAcceptance(otherOrganizationId, [ticket.ticketId]))).toEqual([]);
    await inTransaction(async (_events, tickets) => {
      const [locked] = await tickets.lockForAcceptance(organizationId, [ticket.ticketId]);
      await tickets.saveChanges([
        Object.assign(locked, { price: "60.00", resales: 1, orderTime: 1_760_000_000n, name: "N", attributes: [{ traitType: "Tier", value: "VIP" }] }),
      ]);
    });
    expect(await new TicketsStore(db.dataSource.manager).findByOrganizationAndTicketId(organizationId, ticket.ticketId)).toMatchObject({
      name: "N",
      attributes: [{ traitType: "Tier", value: "VIP" }],
      price: "60.00",
      resales: 1,
      orderTime: 1_760_000_000n,
    });
  });
});
