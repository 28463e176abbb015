import { createHash } from "node:crypto";

import { getAddress, keccak256, toBeHex, toUtf8Bytes } from "ethers";
import { describe, expect, it } from "vitest";

import { acceptanceFixture, anEvent, aTicket, NOW, OTHER_ORGANIZATION, validated } from "../../test/support/acceptance-fixture";
import { custodyMaskOf, encodeItem } from "../registry";
import { validateItem } from "../common/validation/validate-item";
import { CancelledEventDto } from "../events/dto/cancelled-event.dto";
import { NewEventDto } from "../events/dto/new-event.dto";
import type { EventEntity } from "../events/entities/event.entity";
import { cancelEvent, registerEvent } from "../events/event-rules";
import { ClaimedTicketDto } from "./dto/claimed-ticket.dto";
import { ResoldTicketDto } from "./dto/resold-ticket.dto";
import { SoldTicketDto } from "./dto/sold-ticket.dto";
import { TicketMomentDto } from "./dto/ticket-moment.dto";
import { UpdateTicketDto } from "./dto/update-ticket.dto";
import type { TicketEntity } from "./entities/ticket.entity";
import { checkInTicket, claimTicket, invalidateTicket, resellTicket, sellTicket, updateTicket } from "./ticket-rules";

const WALLET = "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed";

const sold = (fields: Record<string, unknown> = {}) => validated(SoldTicketDto, { eventId: "event-1", ticketId: "ticket-1", price: "49.95", ...fields });
const resold = (fields: Record<string, unknown> = {}) => validated(ResoldTicketDto, { ticketId: "ticket-1", price: "60.00", ...fields });
const moment = (fields: Record<string, unknown> = {}) => validated(TicketMomentDto, { ticketId: "ticket-1", ...fields });
const uriUpdate = (fields: Record<string, unknown> = {}) => validated(UpdateTicketDto, { ticketId: "ticket-1", uri: "ipfs://bafy/2.json", ...fields });
const claim = (fields: Record<string, unknown> = {}) => validated(ClaimedTicketDto, { ticketId: "ticket-1", to: WALLET, ...fields });

function sha256Hex(text: string): string {
  return "0x" + createHash("sha256").update(text, "utf8").digest("hex");
}

type TicketState = "valid" | "checkedIn" | "invalidated" | "claimed";

const STATES: Record<TicketState, Partial<TicketEntity>> = {
  valid: {},
  checkedIn: { checkedIn: true },
  invalidated: { invalidated: true },
  claimed: { checkedIn: true, claimed: true, claimedTo: WALLET },
};

/** An acceptance over one stored event and, unless `state` is null, its ticket "ticket-1" in that state. */
async function withTicket(state: TicketState | null, overrides: Partial<TicketEntity> = {}, eventOverrides: Partial<EventEntity> = {}) {
  const event = anEvent({ eventIndex: 7n, ...eventOverrides });
  const ticket = state === null ? null : aTicket(event, { ...STATES[state], ...overrides });
  const fixture = await acceptanceFixture({ events: [event], tickets: ticket ? [ticket] : [] });
  return { ...fixture, event, ticket: ticket as TicketEntity };
}

/** The ticket actions with the input they take, for the checks every one of them makes. */
const ACTIONS = {
  resold: (context: Parameters<typeof resellTicket>[0]) => resellTicket(context, resold(), "resoldTicket"),
  scanned: (context: Parameters<typeof checkInTicket>[0]) => checkInTicket(context, moment(), "scannedTicket"),
  invalidated: (context: Parameters<typeof invalidateTicket>[0]) => invalidateTicket(context, moment(), "invalidatedTicket"),
  updateTicket: (context: Parameters<typeof updateTicket>[0]) => updateTicket(context, uriUpdate(), "updateTicket"),
  claimed: (context: Parameters<typeof claimTicket>[0]) => claimTicket(context, claim(), "claimedTicket"),
};

/** The outcome of every ticket action in every state (null = accepted). */
const TABLE: Record<keyof typeof ACTIONS, Record<TicketState, string | null>> = {
  resold: { valid: null, checkedIn: "ticket_checked_in", invalidated: "ticket_invalidated", claimed: "ticket_claimed" },
  scanned: { valid: null, checkedIn: null, invalidated: "ticket_invalidated", claimed: null },
  invalidated: { valid: null, checkedIn: "ticket_checked_in", invalidated: "ticket_invalidated", claimed: "ticket_checked_in" },
  updateTicket: { valid: null, checkedIn: null, invalidated: "ticket_invalidated", claimed: null },
  claimed: { valid: "ticket_not_checked_in", checkedIn: null, invalidated: "ticket_invalidated", claimed: "ticket_claimed" },
};

/**
 * The same of a ticket whose event is cancelled: nothing that changes what the ticket is or shows can be
 * done (the registry refuses it too, metadata updates included).
 */
const CANCELLED_EVENT_TABLE: Record<keyof typeof ACTIONS, Record<TicketState, string | null>> = {
  resold: { valid: "event_cancelled", checkedIn: "event_cancelled", invalidated: "event_cancelled", claimed: "event_cancelled" },
  scanned: { valid: "event_cancelled", checkedIn: "event_cancelled", invalidated: "event_cancelled", claimed: "event_cancelled" },
  invalidated: { valid: "event_cancelled", checkedIn: "event_cancelled", invalidated: "event_cancelled", claimed: "event_cancelled" },
  updateTicket: { valid: "event_cancelled", checkedIn: "event_cancelled", invalidated: "event_cancelled", claimed: "event_cancelled" },
  claimed: { valid: "event_cancelled", checkedIn: "event_cancelled", invalidated: "event_cancelled", claimed: "event_cancelled" },
};

const casesOf = (table: typeof TABLE) =>
  Object.entries(table).flatMap(([action, outcomes]) =>
    Object.entries(outcomes).map(([state, code]) => [action as keyof typeof ACTIONS, state as TicketState, code] as const),
  );
const CASES = casesOf(TABLE);

describe("the acceptance table: every ticket action in every state", () => {
  it.each(CASES)("%s of a %s ticket → %s", async (action, state, code) => {
    const { context, recorded, ticket, touchedTickets } = await withTicket(state);
    const before = { ...ticket };
    const outcome = ACTIONS[action](context);
    if (code === null) {
      expect(outcome.error).toBeUndefined();
      expect(recorded).toHaveLength(1);
      expect(recorded[0]).toMatchObject({ id: outcome.actionId, ticketRef: ticket.id, eventRef: ticket.eventRef });
      expect(touchedTickets).toEqual([ticket]);
    } else {
      expect(outcome).toEqual({ error: { code, field: "ticketId", message: expect.stringContaining("ticket-1") } });
      expect(recorded).toEqual([]);
      expect(touchedTickets).toEqual([]);
      expect(ticket).toEqual(before);
    }
  });

  it.each(casesOf(CANCELLED_EVENT_TABLE))("%s of a %s ticket of a cancelled event → %s", async (action, state, code) => {
    const { context, recorded, ticket } = await withTicket(state, {}, { cancelledAt: new Date(1_000) });
    const before = { ...ticket };
    const outcome = ACTIONS[action](context);
    if (code === null) {
      expect(outcome.error).toBeUndefined();
      expect(recorded).toHaveLength(1);
    } else {
      expect(outcome).toEqual({ error: { code, field: "ticketId", message: expect.stringContaining("ticket-1") } });
      expect(recorded).toEqual([]);
      expect(ticket).toEqual(before);
    }
  });

  it.each(Object.keys(ACTIONS) as (keyof typeof ACTIONS)[])("%s of an unknown ticket → ticket_not_found", async (action) => {
    const { context, recorded } = await withTicket(null);
    expect(ACTIONS[action](context)).toEqual({ error: { code: "ticket_not_found", field: "ticketId", message: "Ticket ticket-1 is not registered." } });
    expect(recorded).toEqual([]);
  });

  it.each(Object.keys(ACTIONS) as (keyof typeof ACTIONS)[])("%s of another ticketeer's ticket → ticket_not_found", async (action) => {
    const event = anEvent({ organizationId: OTHER_ORGANIZATION.id });
    const theirs = aTicket(event);
    const { context } = await acceptanceFixture({ events: [event], tickets: [theirs] });
    expect(ACTIONS[action](context).error?.code).toBe("ticket_not_found");
  });
});

describe("sellTicket", () => {
  it("creates the ticket with the next serial of its event and tokenId = eventIndex << 64 | serial", async () => {
    const event = anEvent({ eventIndex: 7n, ticketsSold: 41n });
    const { context, recorded, touchedEvents, touchedTickets } = await acceptanceFixture({ events: [event] });
    const outcome = sellTicket(context, sold({ uri: "ipfs://bafy/1.json", orderTime: 1_750_000_123 }), "soldTicket");

    expect(outcome.error).toBeUndefined();
    const ticket = context.tickets.find("ticket-1")!;
    expect(ticket).toMatchObject({
      eventRef: event.id,
      ticketId: "ticket-1",
      serial: 42n,
      tokenId: (7n << 64n) | 42n,
      price: "49.95",
      uri: "ipfs://bafy/1.json",
      orderTime: 1_750_000_123n,
      checkedIn: false,
      invalidated: false,
      claimed: false,
      claimedTo: null,
      resales: 0,
    });
    expect(ticket.tokenId).toBe(129127208515966861354n);
    expect(event.ticketsSold).toBe(42n);
    expect(touchedEvents).toEqual([event]);
    expect(touchedTickets).toEqual([ticket]);
    expect(recorded).toEqual([
      {
        id: outcome.actionId,
        kind: "sold",
        requestedAs: "soldTicket",
        eventRef: event.id,
        eventIndex: event.eventIndex,
        ticketRef: ticket.id,
        onChain: expect.any(Object),
      },
    ]);
  });

  it("records the sale on chain with sha256(ticketId), the price string as sent and the orderTime", async () => {
    const { context, recorded } = await acceptanceFixture({ events: [anEvent({ eventIndex: 3n })] });
    sellTicket(context, sold({ ticketId: "0b9e2c1a-7d4f-4a7e-8f3e-5c2d1b0a9f87", price: "12.50", orderTime: "18446744073709551615" }), "sold");
    expect(recorded[0].onChain).toEqual({
      action: "sold",
      tokenId: (3n << 64n) | 1n,
      ticketHash: sha256Hex("0b9e2c1a-7d4f-4a7e-8f3e-5c2d1b0a9f87"),
      price: "12.50",
      orderTime: 18446744073709551615n,
    });
    expect(() => encodeItem(recorded[0].onChain!)).not.toThrow();
  });

  it("sends a ticket with a uri as a sale with its metadata hash, under the same ledger kind", async () => {
    const { context, recorded } = await acceptanceFixture({ events: [anEvent({ eventIndex: 3n })] });
    sellTicket(context, sold({ uri: "https://img.example/1.png", orderTime: 5 }), "soldTicket");
    expect(recorded[0]).toMatchObject({ kind: "sold" });
    expect(recorded[0].onChain).toEqual({
      action: "soldWithMetadata",
      tokenId: (3n << 64n) | 1n,
      ticketHash: sha256Hex("ticket-1"),
      price: "49.95",
      orderTime: 5n,
      metadataHash: keccak256(toUtf8Bytes('{"uri":"https://img.example/1.png"}')),
    });
    expect(() => encodeItem(recorded[0].onChain!)).not.toThrow();
  });

  it("sends a ticket without metadata of its own as a plain sale: no hash of an empty document", async () => {
    const { context, recorded } = await acceptanceFixture({ events: [anEvent()] });
    sellTicket(context, sold({ uri: null }), "soldTicket");
    expect(recorded[0].onChain).toMatchObject({ action: "sold" });
    expect(recorded[0].onChain).not.toHaveProperty("metadataHash");
  });

  it("defaults orderTime to the acceptance's now and uri to blank", async () => {
    const { context, recorded } = await acceptanceFixture({ events: [anEvent()], now: 1_234_567n });
    sellTicket(context, sold(), "soldTicket");
    expect(context.tickets.find("ticket-1")).toMatchObject({ orderTime: 1_234_567n, uri: "" });
    expect(recorded[0].onChain).toMatchObject({ orderTime: 1_234_567n });
  });

  it("treats orderTime and uri sent as null like ones not sent", async () => {
    const { context } = await acceptanceFixture({ events: [anEvent()] });
    expect(sellTicket(context, sold({ orderTime: null, uri: null }), "soldTicket").error).toBeUndefined();
    expect(context.tickets.find("ticket-1")).toMatchObject({ orderTime: NOW, uri: "" });
    expect(checkInTicket(context, moment({ orderTime: null }), "scannedTicket").error).toBeUndefined();
  });

  it("takes orderTime 0 as sent, not as missing", async () => {
    const { context } = await acceptanceFixture({ events: [anEvent()] });
    sellTicket(context, sold({ orderTime: 0 }), "soldTicket");
    expect(context.tickets.find("ticket-1")?.orderTime).toBe(0n);
  });

  it("numbers serials per event, in request order", async () => {
    const a = anEvent({ eventId: "a", eventIndex: 1n });
    const b = anEvent({ eventId: "b", eventIndex: 2n, ticketsSold: 10n });
    const { context } = await acceptanceFixture({ events: [a, b] });
    for (const [eventId, ticketId] of [
      ["a", "a1"],
      ["b", "b1"],
      ["a", "a2"],
      ["a", "a3"],
      ["b", "b2"],
    ]) {
      expect(sellTicket(context, sold({ eventId, ticketId }), "soldTicket").error).toBeUndefined();
    }
    const tokens = ["a1", "a2", "a3", "b1", "b2"].map((id) => context.tickets.find(id)!);
    expect(tokens.map((t) => t.serial)).toEqual([1n, 2n, 3n, 11n, 12n]);
    expect(tokens.map((t) => t.tokenId)).toEqual([(1n << 64n) | 1n, (1n << 64n) | 2n, (1n << 64n) | 3n, (2n << 64n) | 11n, (2n << 64n) | 12n]);
    expect([a.ticketsSold, b.ticketsSold]).toEqual([3n, 12n]);
  });

  it("refuses an event that is not registered: event_not_found", async () => {
    const { context, recorded } = await acceptanceFixture();
    expect(sellTicket(context, sold(), "soldTicket")).toEqual({
      error: { code: "event_not_found", field: "eventId", message: "Event event-1 is not registered." },
    });
    expect(context.tickets.find("ticket-1")).toBeUndefined();
    expect(recorded).toEqual([]);
  });

  it("refuses a cancelled event: event_cancelled, naming the eventId", async () => {
    const event = anEvent({ eventIndex: 7n, cancelledAt: new Date(1_000) });
    const { context, recorded } = await acceptanceFixture({ events: [event] });
    expect(sellTicket(context, sold(), "soldTicket")).toEqual({ error: { code: "event_cancelled", field: "eventId", message: "Event event-1 is cancelled." } });
    expect(recorded).toEqual([]);
    expect(event.ticketsSold).toBe(0n);
  });

  it("refuses another ticketeer's event as not found", async () => {
    const { context } = await acceptanceFixture({ events: [anEvent({ organizationId: OTHER_ORGANIZATION.id })] });
    expect(sellTicket(context, sold(), "soldTicket").error?.code).toBe("event_not_found");
  });

  it("refuses a ticketId this ticketeer sold already, even for another event, and hands out no serial: ticket_exists", async () => {
    const event = anEvent({ eventId: "event-1" });
    const other = anEvent({ eventId: "event-2", eventIndex: 8n });
    const existing = aTicket(other, { ticketId: "ticket-1" });
    const { context, recorded, touchedEvents } = await acceptanceFixture({ events: [event, other], tickets: [existing] });
    expect(sellTicket(context, sold(), "soldTicket")).toEqual({
      error: { code: "ticket_exists", field: "ticketId", message: "Ticket ticket-1 is already sold." },
    });
    expect(event.ticketsSold).toBe(0n);
    expect(touchedEvents).toEqual([]);
    expect(recorded).toEqual([]);
    expect(sellTicket(context, sold({ ticketId: "ticket-2" }), "soldTicket").error).toBeUndefined();
    expect(context.tickets.find("ticket-2")?.serial).toBe(1n);
  });

  it("checks the event before the ticket: an unknown event with a taken ticketId is event_not_found", async () => {
    const { context } = await withTicket("valid");
    expect(sellTicket(context, sold({ eventId: "nope" }), "soldTicket").error?.code).toBe("event_not_found");
  });

  it("refuses the second sale of one ticketId in one request", async () => {
    const event = anEvent();
    const { context, recorded } = await acceptanceFixture({ events: [event] });
    expect(sellTicket(context, sold(), "soldTicket").error).toBeUndefined();
    expect(sellTicket(context, sold({ price: "1" }), "soldTicket").error?.code).toBe("ticket_exists");
    expect(event.ticketsSold).toBe(1n);
    expect(context.tickets.find("ticket-1")?.price).toBe("49.95");
    expect(recorded).toHaveLength(1);
  });

  it("sells a ticketId another ticketeer uses: theirs does not exist for us", async () => {
    const ours = anEvent();
    const theirEvent = anEvent({ organizationId: OTHER_ORGANIZATION.id, eventIndex: 99n });
    const theirs = aTicket(theirEvent, { ticketId: "ticket-1" });
    const { context } = await acceptanceFixture({ events: [ours, theirEvent], tickets: [theirs] });
    expect(sellTicket(context, sold(), "soldTicket").error).toBeUndefined();
    expect(context.tickets.find("ticket-1")).not.toBe(theirs);
  });
});

describe("resellTicket", () => {
  it("moves the price and orderTime to the resale, counts it and records it on chain", async () => {
    const { context, recorded, ticket } = await withTicket("valid", { resales: 2, price: "49.95", orderTime: 1n });
    const outcome = resellTicket(context, resold({ price: "75.5", orderTime: 1_760_000_000 }), "resoldTicket");
    expect(outcome.error).toBeUndefined();
    expect(ticket).toMatchObject({ resales: 3, price: "75.5", orderTime: 1_760_000_000n, checkedIn: false });
    expect(recorded).toEqual([
      {
        id: outcome.actionId,
        kind: "resold",
        requestedAs: "resoldTicket",
        eventRef: ticket.eventRef,
        eventIndex: ticket.tokenId >> 64n,
        ticketRef: ticket.id,
        onChain: { action: "resold", tokenId: ticket.tokenId, price: "75.5", orderTime: 1_760_000_000n },
      },
    ]);
    expect(() => encodeItem(recorded[0].onChain!)).not.toThrow();
  });

  it("defaults orderTime to the acceptance's now", async () => {
    const { context, recorded, ticket } = await withTicket("valid");
    resellTicket(context, resold(), "resold");
    expect(ticket.orderTime).toBe(NOW);
    expect(recorded[0].onChain).toMatchObject({ orderTime: NOW });
  });

  it("reports a claimed ticket as claimed, though it is also checked in", async () => {
    const { context } = await withTicket("claimed");
    expect(resellTicket(context, resold(), "resold").error?.code).toBe("ticket_claimed");
  });
});

describe("checkInTicket", () => {
  it("checks the ticket in and records the check-in on chain", async () => {
    const { context, recorded, ticket } = await withTicket("valid");
    const outcome = checkInTicket(context, moment({ orderTime: "1760000000" }), "checkedInTicket");
    expect(ticket.checkedIn).toBe(true);
    expect(recorded).toEqual([
      {
        id: outcome.actionId,
        kind: "scanned",
        requestedAs: "checkedInTicket",
        eventRef: ticket.eventRef,
        eventIndex: ticket.tokenId >> 64n,
        ticketRef: ticket.id,
        onChain: { action: "checkedIn", tokenId: ticket.tokenId, orderTime: 1_760_000_000n },
      },
    ]);
    expect(() => encodeItem(recorded[0].onChain!)).not.toThrow();
  });

  it("accepts and records a repeated scan; the ticket stays checked in", async () => {
    const { context, recorded, ticket } = await withTicket("valid");
    const first = checkInTicket(context, moment({ orderTime: 1 }), "scannedTicket");
    const second = checkInTicket(context, moment(), "scannedTicket");
    expect(second.error).toBeUndefined();
    expect(second.actionId).not.toBe(first.actionId);
    expect(ticket.checkedIn).toBe(true);
    expect(recorded.map((entry) => entry.onChain)).toEqual([
      { action: "checkedIn", tokenId: ticket.tokenId, orderTime: 1n },
      { action: "checkedIn", tokenId: ticket.tokenId, orderTime: NOW },
    ]);
  });

  it("does not change the sale's orderTime", async () => {
    const { context, ticket } = await withTicket("valid", { orderTime: 5n });
    checkInTicket(context, moment({ orderTime: 9 }), "scannedTicket");
    expect(ticket.orderTime).toBe(5n);
  });
});

describe("invalidateTicket", () => {
  it("invalidates the ticket and records it on chain, orderTime defaulting to now", async () => {
    const { context, recorded, ticket } = await withTicket("valid");
    const outcome = invalidateTicket(context, moment(), "invalidatedTicket");
    expect(ticket.invalidated).toBe(true);
    expect(recorded).toEqual([
      {
        id: outcome.actionId,
        kind: "invalidated",
        requestedAs: "invalidatedTicket",
        eventRef: ticket.eventRef,
        eventIndex: ticket.tokenId >> 64n,
        ticketRef: ticket.id,
        onChain: { action: "invalidated", tokenId: ticket.tokenId, orderTime: NOW },
      },
    ]);
    expect(() => encodeItem(recorded[0].onChain!)).not.toThrow();
  });
});

describe("updateTicket", () => {
  it("changes the uri and records on chain the keccak-256 of the ticket's new canonical metadata", async () => {
    const { context, recorded, ticket } = await withTicket("valid", { uri: "ipfs://bafy/1.json" });
    const outcome = updateTicket(context, uriUpdate({ uri: "ar://new" }), "updateTicket");
    expect(ticket.uri).toBe("ar://new");
    expect(recorded).toEqual([
      {
        id: outcome.actionId,
        kind: "updateTicket",
        requestedAs: "updateTicket",
        eventRef: ticket.eventRef,
        eventIndex: ticket.tokenId >> 64n,
        ticketRef: ticket.id,
        onChain: { action: "updateTicket", tokenId: ticket.tokenId, metadataHash: keccak256(toUtf8Bytes('{"uri":"ar://new"}')) },
      },
    ]);
    expect(() => encodeItem(recorded[0].onChain!)).not.toThrow();
  });

  const STORED = {
    uri: "ipfs://bafy/1.json",
    name: "Seat 12A",
    description: "Front row",
    animationUrl: "ipfs://bafy/1.mp4",
    attributes: [{ traitType: "Seat", value: "12A" }],
  };

  it("replaces the fields given and keeps those left out", async () => {
    const { context, ticket } = await withTicket("valid", STORED);
    const update = validated(UpdateTicketDto, { ticketId: "ticket-1", name: "Seat 14C", attributes: [{ traitType: "Row", value: 14, displayType: "number" }] });
    expect(updateTicket(context, update, "updateTicket").error).toBeUndefined();
    expect(ticket).toMatchObject({ ...STORED, name: "Seat 14C", attributes: [{ traitType: "Row", value: 14, displayType: "number" }] });
  });

  it("clears a field sent blank, and the attributes sent empty", async () => {
    const { context, ticket } = await withTicket("valid", STORED);
    updateTicket(context, validated(UpdateTicketDto, { ticketId: "ticket-1", description: "", attributes: [] }), "updateTicket");
    expect(ticket).toMatchObject({ ...STORED, description: "", attributes: [] });
  });

  it("records the hash of every metadata field after the change, those kept included", async () => {
    const { context, recorded } = await withTicket("valid", STORED);
    updateTicket(context, validated(UpdateTicketDto, { ticketId: "ticket-1", name: "Seat 14C" }), "updateTicket");
    const document =
      '{"animationUrl":"ipfs://bafy/1.mp4","attributes":[{"traitType":"Seat","value":"12A"}],"description":"Front row","name":"Seat 14C","uri":"ipfs://bafy/1.json"}';
    expect(recorded[0].onChain).toMatchObject({ action: "updateTicket", metadataHash: keccak256(toUtf8Bytes(document)) });
  });

  it("refuses an update without any field as invalid_field, changing nothing", async () => {
    const { context, recorded, ticket } = await withTicket("valid", STORED);
    const outcome = updateTicket(context, validated(UpdateTicketDto, { ticketId: "ticket-1", name: null }), "updateTicket");
    expect(outcome.error).toMatchObject({ code: "invalid_field", field: "uri" });
    expect(ticket).toMatchObject(STORED);
    expect(recorded).toEqual([]);
  });
});

describe("sellTicket's metadata", () => {
  it("keeps the sale's name, description, animationUrl and attributes, and defaults them to blank and none", async () => {
    const { context } = await acceptanceFixture({ events: [anEvent()] });
    const fields = {
      name: "Seat 12A",
      description: "Front row",
      animationUrl: "https://video.example.com/1.mp4",
      attributes: [{ traitType: "Seat", value: "12A" }],
    };
    sellTicket(context, sold(fields), "soldTicket");
    sellTicket(context, sold({ ticketId: "ticket-2" }), "soldTicket");
    expect(context.tickets.find("ticket-1")).toMatchObject(fields);
    expect(context.tickets.find("ticket-2")).toMatchObject({ name: "", description: "", animationUrl: "", attributes: [] });
  });

  it("sells a ticket with a name but no uri with its metadata hash: any field counts", async () => {
    const { context, recorded } = await acceptanceFixture({ events: [anEvent()] });
    sellTicket(context, sold({ name: "Seat 12A" }), "soldTicket");
    expect(recorded[0].onChain).toMatchObject({ action: "soldWithMetadata", metadataHash: keccak256(toUtf8Bytes('{"name":"Seat 12A"}')) });
  });
});

describe("claimTicket", () => {
  it("claims a checked-in ticket to the checksummed address and records the withdrawal on chain", async () => {
    const { context, recorded, ticket } = await withTicket("checkedIn");
    const outcome = claimTicket(context, claim({ to: WALLET.toLowerCase() }), "claimedTicket");
    expect(outcome.error).toBeUndefined();
    expect(ticket).toMatchObject({ claimed: true, claimedTo: WALLET, checkedIn: true });
    expect(recorded).toEqual([
      {
        id: outcome.actionId,
        kind: "claimed",
        requestedAs: "claimedTicket",
        eventRef: ticket.eventRef,
        eventIndex: ticket.tokenId >> 64n,
        ticketRef: ticket.id,
        onChain: { action: "claimed", tokenId: ticket.tokenId, to: WALLET },
      },
    ]);
    expect(() => encodeItem(recorded[0].onChain!)).not.toThrow();
  });

  it("reports an invalidated ticket as invalidated, though it is also not checked in", async () => {
    const { context } = await withTicket("invalidated");
    expect(claimTicket(context, claim(), "claimedTicket").error?.code).toBe("ticket_invalidated");
  });

  it.each([
    ["a wrong checksum", "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAeD"],
    ["19 bytes", "0x" + "ab".repeat(19)],
    ["no 0x", WALLET.slice(2)],
    ["the zero address", "0x" + "0".repeat(40)],
  ])("refuses `to` with %s as invalid_field before the rule runs", (_case, to) => {
    expect(validateItem(ClaimedTicketDto, { ticketId: "ticket-1", to }).error).toMatchObject({ code: "invalid_field", field: "to" });
  });
});

describe("claimTicket's receiver", () => {
  const REGISTRY = "0x5FbDB2315678afecb367f032d93F642f64180aa3";
  const SIGNER = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8";
  const BOUND = { binding: { chainId: 31337n, registryAddress: REGISTRY }, signers: [SIGNER] };
  const custodyOf = (eventIndex: bigint) => getAddress(toBeHex((eventIndex << 96n) ^ custodyMaskOf(31337n, REGISTRY), 20));

  async function checkedInTicket() {
    const event = anEvent({ eventIndex: 7n });
    const ticket = aTicket(event, { checkedIn: true });
    return { ...(await acceptanceFixture({ events: [event], tickets: [ticket], receivers: BOUND })), ticket };
  }

  it.each([
    ["the registry", REGISTRY],
    ["its own event's custody address", custodyOf(7n)],
    ["another event's custody address", custodyOf(8n)],
    ["the service's signer", SIGNER],
    ["the precompile 0x…01", "0x0000000000000000000000000000000000000001"],
    ["the precompile 0x…ff", "0x00000000000000000000000000000000000000ff"],
    ["the burn address", "0x000000000000000000000000000000000000dEaD"],
  ])("refuses %s as invalid_field on `to`, and leaves the ticket unclaimed", async (_case, to) => {
    const { context, recorded, ticket, touchedTickets } = await checkedInTicket();
    const outcome = claimTicket(context, claim({ to }), "claimedTicket");
    expect(outcome).toEqual({ error: { code: "invalid_field", field: "to", message: expect.stringMatching(/^to is /) } });
    expect(ticket).toMatchObject({ claimed: false, claimedTo: null });
    expect(recorded).toEqual([]);
    expect(touchedTickets).toEqual([]);
  });

  it("takes a wallet", async () => {
    const { context, ticket } = await checkedInTicket();
    expect(claimTicket(context, claim(), "claimedTicket").error).toBeUndefined();
    expect(ticket).toMatchObject({ claimed: true, claimedTo: WALLET });
  });
});

describe("one acceptance: actions see each other in order", () => {
  async function withEventCreated(): Promise<{ fixture: Awaited<ReturnType<typeof acceptanceFixture>>; event: EventEntity }> {
    const fixture = await acceptanceFixture({ firstEventIndex: 12n, now: 1_700_000_000n });
    const created = registerEvent(
      fixture.context,
      validated(NewEventDto, { eventId: "event-1", currency: "EUR", callbackUrl: "https://integrator.example.com/cb" }),
      "newEvent",
    );
    expect(created.error).toBeUndefined();
    return { fixture, event: fixture.context.events.find("event-1")! };
  }

  it("newEvent, then soldTicket, then scannedTicket, then claimedTicket all succeed", async () => {
    const { fixture, event } = await withEventCreated();
    const { context, recorded } = fixture;
    const outcomes = [
      sellTicket(context, sold(), "soldTicket"),
      checkInTicket(context, moment(), "scannedTicket"),
      claimTicket(context, claim(), "claimedTicket"),
    ];
    expect(outcomes.map((outcome) => outcome.error)).toEqual([undefined, undefined, undefined]);
    const ticket = context.tickets.find("ticket-1")!;
    expect(ticket).toMatchObject({ serial: 1n, tokenId: (12n << 64n) | 1n, checkedIn: true, claimed: true });
    expect(recorded.map((entry) => [entry.kind, entry.onChain?.action])).toEqual([
      ["newEvent", "registerEvent"],
      ["sold", "sold"],
      ["scanned", "checkedIn"],
      ["claimed", "claimed"],
    ]);
    expect(recorded.slice(1).every((entry) => entry.eventRef === event.id && entry.ticketRef === ticket.id)).toBe(true);
  });

  it("an action before the one that enables it is refused; after it, accepted", async () => {
    const { fixture } = await withEventCreated();
    const { context } = fixture;
    expect(checkInTicket(context, moment(), "scannedTicket").error?.code).toBe("ticket_not_found");
    expect(sellTicket(context, sold(), "soldTicket").error).toBeUndefined();
    expect(claimTicket(context, claim(), "claimedTicket").error?.code).toBe("ticket_not_checked_in");
    expect(checkInTicket(context, moment(), "scannedTicket").error).toBeUndefined();
    expect(claimTicket(context, claim(), "claimedTicket").error).toBeUndefined();
    expect(resellTicket(context, resold(), "resoldTicket").error?.code).toBe("ticket_claimed");
    expect(claimTicket(context, claim(), "claimedTicket").error?.code).toBe("ticket_claimed");
    expect(checkInTicket(context, moment(), "scannedTicket").error).toBeUndefined();
    expect(fixture.recorded.map((entry) => entry.kind)).toEqual(["newEvent", "sold", "scanned", "claimed", "scanned"]);
  });

  it("a check-in then an invalidation: the invalidation is refused", async () => {
    const { fixture } = await withEventCreated();
    const { context } = fixture;
    sellTicket(context, sold(), "soldTicket");
    expect(resellTicket(context, resold(), "resoldTicket").error).toBeUndefined();
    expect(checkInTicket(context, moment(), "scannedTicket").error).toBeUndefined();
    expect(invalidateTicket(context, moment(), "invalidatedTicket").error?.code).toBe("ticket_checked_in");
    expect(resellTicket(context, resold(), "resoldTicket").error?.code).toBe("ticket_checked_in");
  });

  it("an invalidation then a scan, a claim, an update: all refused as invalidated", async () => {
    const { fixture } = await withEventCreated();
    const { context } = fixture;
    sellTicket(context, sold(), "soldTicket");
    expect(invalidateTicket(context, moment(), "invalidatedTicket").error).toBeUndefined();
    expect(invalidateTicket(context, moment(), "invalidatedTicket").error?.code).toBe("ticket_invalidated");
    expect(checkInTicket(context, moment(), "scannedTicket").error?.code).toBe("ticket_invalidated");
    expect(claimTicket(context, claim(), "claimedTicket").error?.code).toBe("ticket_invalidated");
    expect(updateTicket(context, uriUpdate(), "updateTicket").error?.code).toBe("ticket_invalidated");
    expect(resellTicket(context, resold(), "resoldTicket").error?.code).toBe("ticket_invalidated");
    expect(fixture.recorded.map((entry) => entry.kind)).toEqual(["newEvent", "sold", "invalidated"]);
  });

  it("a sale and a check-in, then the event's cancellation, then a sale and a check-in: the first two stand, the last two are refused", async () => {
    const { fixture } = await withEventCreated();
    const { context } = fixture;
    expect(sellTicket(context, sold(), "soldTicket").error).toBeUndefined();
    expect(checkInTicket(context, moment(), "scannedTicket").error).toBeUndefined();
    expect(cancelEvent(context, validated(CancelledEventDto, { eventId: "event-1" }), "cancelledEvent").error).toBeUndefined();
    expect(sellTicket(context, sold({ ticketId: "ticket-2" }), "soldTicket").error?.code).toBe("event_cancelled");
    expect(checkInTicket(context, moment(), "scannedTicket").error?.code).toBe("event_cancelled");
    expect(claimTicket(context, claim(), "claimedTicket").error?.code).toBe("event_cancelled");
    expect(fixture.recorded.map((entry) => [entry.kind, entry.onChain?.action])).toEqual([
      ["newEvent", "registerEvent"],
      ["sold", "sold"],
      ["scanned", "checkedIn"],
      ["cancelledEvent", "cancelEvent"],
    ]);
    expect(context.tickets.find("ticket-1")).toMatchObject({ checkedIn: true, invalidated: false, claimed: false });
  });

  it("tickets sold in one request for an event created in it are numbered from 1", async () => {
    const { fixture } = await withEventCreated();
    const { context } = fixture;
    for (const ticketId of ["t1", "t2", "t3"]) sellTicket(context, sold({ ticketId }), "soldTicket");
    expect(["t1", "t2", "t3"].map((id) => context.tickets.find(id)?.tokenId)).toEqual([(12n << 64n) | 1n, (12n << 64n) | 2n, (12n << 64n) | 3n]);
    // The event is inserted as it ends up, not touched as an existing row.
    expect(context.events.find("event-1")?.ticketsSold).toBe(3n);
  });
});
