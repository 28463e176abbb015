import { createHash } from "node:crypto";

import { AbiCoder, getBytes, keccak256, toUtf8Bytes, ZeroHash } from "ethers";
import { describe, expect, it } from "vitest";

import { acceptanceFixture, anEvent, ORGANIZATION, OTHER_ORGANIZATION, validated } from "../../test/support/acceptance-fixture";
import { encodeItem } from "../registry";
import { CancelledEventDto } from "./dto/cancelled-event.dto";
import { CreateEventDto, NewEventDto } from "./dto/new-event.dto";
import { UpdateEventDto } from "./dto/update-event.dto";
import { cancelEvent, registerEvent, updateEvent } from "./event-rules";

const CALLBACK = "https://integrator.example.com/callbacks";

function newEvent(fields: Record<string, unknown> = {}): NewEventDto {
  return validated(NewEventDto, { eventId: "event-1", currency: "EUR", callbackUrl: CALLBACK, ...fields });
}

function update(fields: Record<string, unknown>): UpdateEventDto {
  return validated(UpdateEventDto, { eventId: "event-1", ...fields });
}

function sha256Hex(data: string | Uint8Array): string {
  return "0x" + createHash("sha256").update(data).digest("hex");
}

describe("registerEvent", () => {
  it("keeps the event's description and ticketImageUrl, blank when not sent", async () => {
    const { context } = await acceptanceFixture({ firstEventIndex: 41n });
    registerEvent(context, newEvent({ description: "Chamber music", ticketImageUrl: "ipfs://bafy/ticket.png" }), "newEvent");
    registerEvent(context, newEvent({ eventId: "event-2" }), "newEvent");
    expect(context.events.find("event-1")).toMatchObject({ description: "Chamber music", ticketImageUrl: "ipfs://bafy/ticket.png" });
    expect(context.events.find("event-2")).toMatchObject({ description: "", ticketImageUrl: "" });
  });

  it("creates the event with the next reserved registry index and records its registration", async () => {
    const { context, recorded } = await acceptanceFixture({ firstEventIndex: 41n });
    const outcome = registerEvent(
      context,
      newEvent({ eventName: "Concert", latitude: 52.3731, longitude: 4.8922, startTime: 1_900_000_000, endTime: "1900010800" }),
      "newEvent",
    );

    expect(outcome.error).toBeUndefined();
    const event = context.events.find("event-1");
    expect(event).toMatchObject({
      eventId: "event-1",
      organizationId: ORGANIZATION.id,
      eventIndex: 41n,
      ticketsSold: 0n,
      name: "Concert",
      currency: "EUR",
      latitude: 52.3731,
      longitude: 4.8922,
      startTime: 1_900_000_000n,
      endTime: 1_900_010_800n,
      callbackUrl: CALLBACK,
    });
    expect(recorded).toEqual([
      {
        id: outcome.actionId,
        kind: "newEvent",
        requestedAs: "newEvent",
        eventRef: event!.id,
        eventIndex: event!.eventIndex,
        ticketRef: null,
        onChain: expect.any(Object),
      },
    ]);
  });

  it("records registerEvent with the event key sha256(abi.encode(ticketeerId, eventId)) and the ticketeer sha256(ticketeerId)", async () => {
    const { context, recorded } = await acceptanceFixture({ firstEventIndex: 5n });
    registerEvent(
      context,
      newEvent({
        eventName: "Concert",
        shopUrl: "https://shop.example.com/c",
        imageUrl: "https://img.example.com/c.png",
        latitude: -33.8688,
        longitude: 151.2093,
        startTime: 10,
        endTime: 20,
      }),
      "newEvent",
    );

    const eventKey = sha256Hex(getBytes(AbiCoder.defaultAbiCoder().encode(["string", "string"], [ORGANIZATION.ticketeerId, "event-1"])));
    expect(recorded[0].onChain).toEqual({
      action: "registerEvent",
      eventIndex: 5n,
      eventKey,
      ticketeer: sha256Hex(ORGANIZATION.ticketeerId),
      details: {
        name: "Concert",
        currency: "EUR",
        shopUrl: "https://shop.example.com/c",
        imageUrl: "https://img.example.com/c.png",
        latitude: -33.8688,
        longitude: 151.2093,
        startTime: 10n,
        endTime: 20n,
        organizer: ORGANIZATION.name,
        metadataHash: ZeroHash,
      },
    });
    expect(() => encodeItem(recorded[0].onChain!)).not.toThrow();
  });

  it("keys the same eventId of another ticketeer differently", async () => {
    const ours = await acceptanceFixture();
    const theirs = await acceptanceFixture({ organization: OTHER_ORGANIZATION });
    registerEvent(ours.context, newEvent(), "newEvent");
    registerEvent(theirs.context, newEvent(), "newEvent");
    const [a, b] = [ours.recorded[0].onChain, theirs.recorded[0].onChain] as { eventKey: string; ticketeer: string }[];
    expect(a.eventKey).not.toBe(b.eventKey);
    expect(a.ticketeer).not.toBe(b.ticketeer);
  });

  it("fills the defaults: blank strings and 0 for every optional on-chain field", async () => {
    const { context, recorded } = await acceptanceFixture();
    registerEvent(context, newEvent(), "newEvent");

    expect(context.events.find("event-1")).toMatchObject({
      name: "",
      ticketeerName: "",
      shopUrl: "",
      imageUrl: "",
      latitude: 0,
      longitude: 0,
      startTime: 0n,
      endTime: 0n,
    });
    expect(recorded[0].onChain).toMatchObject({
      details: { name: "", currency: "EUR", shopUrl: "", imageUrl: "", latitude: 0, longitude: 0, startTime: 0n, endTime: 0n },
    });
  });

  it("puts the ticketeerName on chain as the organizer and keeps the callbackUrl off chain", async () => {
    const { context, recorded } = await acceptanceFixture();
    registerEvent(context, newEvent({ ticketeerName: "Stage Events B.V." }), "newEvent");
    expect(context.events.find("event-1")?.ticketeerName).toBe("Stage Events B.V.");
    expect(recorded[0].onChain).toMatchObject({ details: { organizer: "Stage Events B.V." } });
    expect(JSON.stringify(recorded[0].onChain, (_key, value) => (typeof value === "bigint" ? value.toString() : value))).not.toMatch(/callbacks/);
  });

  it("names the organization as the organizer when the event gives no ticketeerName", async () => {
    const { context, recorded } = await acceptanceFixture();
    registerEvent(context, newEvent(), "newEvent");
    expect(recorded[0].onChain).toMatchObject({ details: { organizer: ORGANIZATION.name } });
  });

  it("takes uint64 times sent as decimal strings up to 2^64 - 1", async () => {
    const { context } = await acceptanceFixture();
    registerEvent(context, newEvent({ startTime: "18446744073709551614", endTime: "18446744073709551615" }), "newEvent");
    expect(context.events.find("event-1")).toMatchObject({ startTime: 18446744073709551614n, endTime: 18446744073709551615n });
  });

  it("refuses an eventId this ticketeer registered already: event_exists", async () => {
    const existing = anEvent({ eventId: "event-1" });
    const { context, recorded } = await acceptanceFixture({ events: [existing] });
    expect(registerEvent(context, newEvent(), "newEvent")).toEqual({
      error: { code: "event_exists", field: "eventId", message: "Event event-1 is already registered." },
    });
    expect(recorded).toEqual([]);
    expect(context.events.find("event-1")).toBe(existing);
  });

  it("refuses the second of two newEvents with one eventId in one request", async () => {
    const { context, recorded } = await acceptanceFixture();
    expect(registerEvent(context, newEvent(), "newEvent").error).toBeUndefined();
    expect(registerEvent(context, newEvent({ eventName: "again" }), "newEvent").error?.code).toBe("event_exists");
    expect(recorded).toHaveLength(1);
    expect(context.events.find("event-1")?.name).toBe("");
  });

  it("registers an eventId another ticketeer uses: theirs does not exist for us", async () => {
    const theirs = anEvent({ eventId: "event-1", organizationId: OTHER_ORGANIZATION.id });
    const { context } = await acceptanceFixture({ events: [theirs] });
    expect(registerEvent(context, newEvent(), "newEvent").error).toBeUndefined();
    expect(context.events.find("event-1")).not.toBe(theirs);
  });

  it("takes the API key's own ticketeerId and refuses another: ticketeer_mismatch", async () => {
    const { context, recorded } = await acceptanceFixture();
    expect(registerEvent(context, newEvent({ eventId: "mine", ticketeerId: ORGANIZATION.ticketeerId }), "newEvent").error).toBeUndefined();
    expect(registerEvent(context, newEvent({ eventId: "theirs", ticketeerId: OTHER_ORGANIZATION.ticketeerId }), "newEvent")).toEqual({
      error: { code: "ticketeer_mismatch", field: "ticketeerId", message: "ticketeerId ticketeer-77 is not the organization of this API key." },
    });
    expect(context.events.find("theirs")).toBeUndefined();
    expect(recorded).toHaveLength(1);
  });

  it("applies the same rules to POST /events bodies", async () => {
    const { context, recorded } = await acceptanceFixture();
    const body = validated(CreateEventDto, { eventId: "event-1", currency: "EUR", callbackUrl: CALLBACK, ticketeerId: "ticketeer-77" });
    expect(registerEvent(context, body, "events").error?.code).toBe("ticketeer_mismatch");
    const own = validated(CreateEventDto, { eventId: "event-1", currency: "EUR", callbackUrl: CALLBACK, ticketeerId: ORGANIZATION.ticketeerId });
    expect(registerEvent(context, own, "events").error).toBeUndefined();
    expect(recorded[0]).toMatchObject({ kind: "newEvent", requestedAs: "events" });
  });

  it("checks the ticketeer before the eventId: a mismatch is reported even for a taken id", async () => {
    const { context } = await acceptanceFixture({ events: [anEvent({ eventId: "event-1" })] });
    expect(registerEvent(context, newEvent({ ticketeerId: "ticketeer-77" }), "newEvent").error?.code).toBe("ticketeer_mismatch");
  });

  it("refuses an endTime before the startTime, and takes an equal or unset endTime", async () => {
    const { context, recorded } = await acceptanceFixture();
    expect(registerEvent(context, newEvent({ eventId: "a", startTime: 100, endTime: 99 }), "newEvent")).toEqual({
      error: { code: "invalid_field", field: "endTime", message: "endTime must not be before startTime." },
    });
    expect(context.events.find("a")).toBeUndefined();
    expect(registerEvent(context, newEvent({ eventId: "b", startTime: 100, endTime: 100 }), "newEvent").error).toBeUndefined();
    expect(registerEvent(context, newEvent({ eventId: "c", startTime: 100 }), "newEvent").error).toBeUndefined();
    expect(registerEvent(context, newEvent({ eventId: "d", startTime: "18446744073709551615", endTime: 1 }), "newEvent").error?.code).toBe("invalid_field");
    expect(recorded).toHaveLength(2);
  });

  it("gives each new event of one request its own registry index, in order; a refused one uses none", async () => {
    const { context, recorded } = await acceptanceFixture({ firstEventIndex: 10n });
    registerEvent(context, newEvent({ eventId: "a" }), "newEvent");
    registerEvent(context, newEvent({ eventId: "a" }), "newEvent");
    registerEvent(context, newEvent({ eventId: "b" }), "newEvent");
    expect([context.events.find("a")?.eventIndex, context.events.find("b")?.eventIndex]).toEqual([10n, 11n]);
    expect(recorded.map((entry) => (entry.onChain as { eventIndex: bigint }).eventIndex)).toEqual([10n, 11n]);
  });

  it("hands out a fresh action id per action", async () => {
    const { context } = await acceptanceFixture();
    const a = registerEvent(context, newEvent({ eventId: "a" }), "newEvent");
    const b = registerEvent(context, newEvent({ eventId: "b" }), "newEvent");
    expect(a.actionId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(b.actionId).not.toBe(a.actionId);
  });
});

describe("updateEvent", () => {
  it("refuses an event that is not registered: event_not_found", async () => {
    const { context, recorded } = await acceptanceFixture();
    expect(updateEvent(context, update({ eventName: "Renamed" }), "updateEvent")).toEqual({
      error: { code: "event_not_found", field: "eventId", message: "Event event-1 is not registered." },
    });
    expect(recorded).toEqual([]);
  });

  it("refuses another ticketeer's event as not found", async () => {
    const { context } = await acceptanceFixture({ events: [anEvent({ organizationId: OTHER_ORGANIZATION.id })] });
    expect(updateEvent(context, update({ eventName: "Renamed" }), "updateEvent").error?.code).toBe("event_not_found");
  });

  it("refuses an update that changes nothing", async () => {
    const { context, recorded } = await acceptanceFixture({ events: [anEvent()] });
    expect(updateEvent(context, update({}), "updateEvent")).toEqual({
      error: { code: "invalid_field", field: "eventId", message: "updateEvent needs at least one field to change besides eventId." },
    });
    expect(updateEvent(context, update({ eventName: null, unknown: "x" }), "updateEvent").error?.code).toBe("invalid_field");
    expect(recorded).toEqual([]);
  });

  it("changes the fields sent, keeps the others, marks the event changed and records the new on-chain details", async () => {
    const event = anEvent({ eventIndex: 9n, startTime: 100n, endTime: 200n });
    const { context, recorded, touchedEvents } = await acceptanceFixture({ events: [event] });
    const outcome = updateEvent(
      context,
      update({ eventName: "Renamed", imageUrl: "https://img.example.com/new.png", latitude: 1e-7, endTime: "300" }),
      "updateEvent",
    );

    expect(outcome.error).toBeUndefined();
    expect(event).toMatchObject({
      name: "Renamed",
      imageUrl: "https://img.example.com/new.png",
      latitude: 1e-7,
      endTime: 300n,
      startTime: 100n,
      currency: "EUR",
      shopUrl: "https://shop.example.com/concert",
      longitude: 4.8922,
    });
    expect(touchedEvents).toEqual([event]);
    expect(recorded).toEqual([
      {
        id: outcome.actionId,
        kind: "updateEvent",
        requestedAs: "updateEvent",
        eventRef: event.id,
        eventIndex: event.eventIndex,
        ticketRef: null,
        onChain: {
          action: "updateEvent",
          eventIndex: 9n,
          details: {
            name: "Renamed",
            currency: "EUR",
            shopUrl: "https://shop.example.com/concert",
            imageUrl: "https://img.example.com/new.png",
            latitude: 1e-7,
            longitude: 4.8922,
            startTime: 100n,
            endTime: 300n,
            organizer: ORGANIZATION.name,
            metadataHash: ZeroHash,
          },
        },
      },
    ]);
    expect(() => encodeItem(recorded[0].onChain!)).not.toThrow();
  });

  it("records no on-chain item for a change of only callbackUrl", async () => {
    const event = anEvent();
    const { context, recorded, touchedEvents } = await acceptanceFixture({ events: [event] });
    const fields = { callbackUrl: "https://integrator.example.com/v2/callbacks" };
    const outcome = updateEvent(context, update(fields), "updateEvent");
    expect(outcome.error).toBeUndefined();
    expect(event).toMatchObject(fields);
    expect(touchedEvents).toEqual([event]);
    expect(recorded).toEqual([
      {
        id: outcome.actionId,
        kind: "updateEvent",
        requestedAs: "updateEvent",
        eventRef: event.id,
        eventIndex: event.eventIndex,
        ticketRef: null,
        onChain: null,
      },
    ]);
  });

  it("sends an update of only description or ticketImageUrl on chain with the hash of the event's new off-chain metadata, the others keeping theirs", async () => {
    const event = anEvent({ description: "Old", ticketImageUrl: "ipfs://bafy/old.png" });
    const { context, recorded } = await acceptanceFixture({ events: [event] });
    expect(updateEvent(context, update({ description: "Chamber music" }), "updateEvent").error).toBeUndefined();
    expect(event).toMatchObject({ description: "Chamber music", ticketImageUrl: "ipfs://bafy/old.png" });
    expect(updateEvent(context, update({ ticketImageUrl: "" }), "updateEvent").error).toBeUndefined();
    expect(event).toMatchObject({ description: "Chamber music", ticketImageUrl: "" });
    // Wallets are told through the registry's ERC-4906 notice of the update: the change reaches the chain.
    expect(recorded.map((action) => (action.onChain as { details: { metadataHash: string } }).details.metadataHash)).toEqual([
      keccak256(toUtf8Bytes('{"description":"Chamber music","ticketImageUrl":"ipfs://bafy/old.png"}')),
      keccak256(toUtf8Bytes('{"description":"Chamber music"}')),
    ]);
  });

  it("enables a disabled callbackUrl again when an update carries one, the same or another; other updates leave it disabled", async () => {
    const disabledAt = new Date("2026-05-01T12:00:00Z");
    const failingSince = new Date("2026-04-26T12:00:00Z");
    const renamed = anEvent({ eventId: "renamed", callbackFailingSince: failingSince, callbackDisabledAt: disabledAt });
    const resent = anEvent({ eventId: "resent", callbackFailingSince: failingSince, callbackDisabledAt: disabledAt });
    const { context } = await acceptanceFixture({ events: [renamed, resent] });

    expect(updateEvent(context, update({ eventId: "renamed", eventName: "Renamed" }), "updateEvent").error).toBeUndefined();
    expect(updateEvent(context, update({ eventId: "resent", callbackUrl: resent.callbackUrl }), "updateEvent").error).toBeUndefined();

    expect(renamed).toMatchObject({ callbackFailingSince: failingSince, callbackDisabledAt: disabledAt });
    expect(resent).toMatchObject({ callbackFailingSince: null, callbackDisabledAt: null });
  });

  it.each([
    ["eventName", "x"],
    ["ticketeerName", "Renamed B.V."],
    ["currency", "USD"],
    ["shopUrl", "https://s.example.com"],
    ["imageUrl", "https://i.example.com"],
    ["latitude", 0],
    ["longitude", 0],
    ["startTime", 0],
    ["endTime", 0],
  ])("records an on-chain item for a change of %s", async (field, value) => {
    const { context, recorded } = await acceptanceFixture({ events: [anEvent()] });
    updateEvent(context, update({ [field]: value }), "updateEvent");
    expect(recorded[0].onChain).toMatchObject({ action: "updateEvent" });
  });

  it("treats fields sent as null like ones not sent", async () => {
    const event = anEvent({ startTime: 100n, endTime: 200n });
    const { context, recorded } = await acceptanceFixture({ events: [event] });
    expect(
      updateEvent(context, update({ startTime: null, endTime: null, callbackUrl: "https://integrator.example.com/v2" }), "updateEvent").error,
    ).toBeUndefined();
    expect(event).toMatchObject({ startTime: 100n, endTime: 200n });
    expect(recorded[0].onChain).toBeNull();
  });

  it("refuses times that put the end before the start, counting the stored ones, and changes nothing", async () => {
    const event = anEvent({ startTime: 100n, endTime: 200n });
    const { context, recorded, touchedEvents } = await acceptanceFixture({ events: [event] });
    expect(updateEvent(context, update({ startTime: 201, eventName: "x" }), "updateEvent").error).toMatchObject({ code: "invalid_field", field: "endTime" });
    expect(updateEvent(context, update({ endTime: 99 }), "updateEvent").error).toMatchObject({ code: "invalid_field", field: "endTime" });
    expect(event).toMatchObject({ startTime: 100n, endTime: 200n, name: "Concert in the Park" });
    expect(updateEvent(context, update({ endTime: 0 }), "updateEvent").error).toBeUndefined();
    expect(updateEvent(context, update({ startTime: 5000 }), "updateEvent").error).toBeUndefined();
    expect(touchedEvents).toHaveLength(2);
    expect(recorded).toHaveLength(2);
  });

  it("updates an event registered earlier in the same request", async () => {
    const { context, recorded } = await acceptanceFixture({ firstEventIndex: 3n });
    registerEvent(context, newEvent(), "newEvent");
    expect(updateEvent(context, update({ eventName: "Renamed" }), "updateEvent").error).toBeUndefined();
    expect(context.events.find("event-1")?.name).toBe("Renamed");
    expect(recorded.map((entry) => entry.kind)).toEqual(["newEvent", "updateEvent"]);
    // The registration recorded the details as they were then.
    expect(recorded[0].onChain).toMatchObject({ details: { name: "" } });
    expect(recorded[1].onChain).toMatchObject({ eventIndex: 3n, details: { name: "Renamed" } });
  });
});

describe("cancelEvent", () => {
  const cancellation = (eventId = "event-1") => validated(CancelledEventDto, { eventId });

  it("marks the event cancelled at the acceptance's now and records one item for the whole event", async () => {
    const event = anEvent({ eventIndex: 9n, ticketsSold: 5_000n });
    const { context, recorded, touchedEvents } = await acceptanceFixture({ events: [event], now: 1_750_000_000n });
    const outcome = cancelEvent(context, cancellation(), "cancel");

    expect(outcome.error).toBeUndefined();
    expect(event.cancelledAt).toEqual(new Date(1_750_000_000_000));
    expect(touchedEvents).toEqual([event]);
    expect(recorded).toEqual([
      {
        id: outcome.actionId,
        kind: "cancelledEvent",
        requestedAs: "cancel",
        eventRef: event.id,
        eventIndex: 9n,
        ticketRef: null,
        onChain: { action: "cancelEvent", eventIndex: 9n },
      },
    ]);
    expect(encodeItem(recorded[0].onChain!)).toBe("0x080000000000000009");
  });

  it("refuses an event that is not registered, and another ticketeer's as if it were not: event_not_found", async () => {
    const theirs = anEvent({ organizationId: OTHER_ORGANIZATION.id });
    const { context, recorded } = await acceptanceFixture({ events: [theirs] });
    expect(cancelEvent(context, cancellation(), "cancel")).toEqual({
      error: { code: "event_not_found", field: "eventId", message: "Event event-1 is not registered." },
    });
    expect(theirs.cancelledAt).toBeNull();
    expect(recorded).toEqual([]);
  });

  it("refuses an event cancelled already, whose first cancellation stands: event_cancelled", async () => {
    const cancelledAt = new Date(1_000);
    const event = anEvent({ cancelledAt });
    const { context, recorded } = await acceptanceFixture({ events: [event] });
    expect(cancelEvent(context, cancellation(), "cancelledEvent")).toEqual({
      error: { code: "event_cancelled", field: "eventId", message: "Event event-1 is cancelled." },
    });
    expect(event.cancelledAt).toBe(cancelledAt);
    expect(recorded).toEqual([]);
  });

  it("cancels an event registered earlier in the same request, after its registration, and refuses a second cancellation in it", async () => {
    const { context, recorded } = await acceptanceFixture({ firstEventIndex: 3n });
    expect(registerEvent(context, newEvent(), "newEvent").error).toBeUndefined();
    expect(cancelEvent(context, cancellation(), "cancelledEvent").error).toBeUndefined();
    expect(cancelEvent(context, cancellation(), "cancelledEvent").error?.code).toBe("event_cancelled");
    expect(recorded.map((entry) => entry.onChain?.action)).toEqual(["registerEvent", "cancelEvent"]);
  });

  it("leaves the event updatable: its details and callbackUrl may still change", async () => {
    const event = anEvent({ cancelledAt: new Date(1_000) });
    const { context } = await acceptanceFixture({ events: [event] });
    expect(updateEvent(context, update({ imageUrl: "https://img.example.com/cancelled.png" }), "updateEvent").error).toBeUndefined();
    expect(event.imageUrl).toBe("https://img.example.com/cancelled.png");
  });
});
