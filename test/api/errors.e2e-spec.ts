import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { apiClient } from "../support/api-client";
import { eventBody, historyOf, id, keysOf, newEventData, soldItem, UUID, WALLET, WALLET_BAD_CHECKSUM } from "../support/fixtures";
import { startTestApp, type TestApp } from "../support/test-app";

/**
 * Every error code of the acceptance rules and the field rules (docs/integrators/api.md#errors), item by item: status "error", the code and the
 * field; a refused item never blocks the items after it, and is not stored.
 */
let testApp: TestApp;
let api: ReturnType<typeof apiClient>;
let ticketeerId: string;
let eventId: string;

const success = (ticketId: string | null) => ({ txPromise: expect.stringMatching(UUID), ticketId, status: "success" });
const refused = (ticketId: string | null, code: string, field?: string) => ({
  ticketId,
  status: "error",
  error: field === undefined ? { code, message: expect.any(String) } : { code, message: expect.any(String), field },
});
const streamRefused = (action: string | null, ids: Record<string, string | null>, code: string, field?: string) => ({
  status: "error",
  action,
  ...ids,
  error: field === undefined ? { code, message: expect.any(String) } : { code, message: expect.any(String), field },
});
const streamSuccess = (action: string, ids: Record<string, string>) => ({ status: "success", action, ...ids, actionPromise: expect.stringMatching(UUID) });

/** Sells a ticket in the shared event; `then` runs stream actions on it (all must succeed). */
async function ticketIn(state: "valid" | "checked_in" | "invalidated" | "claimed"): Promise<string> {
  const ticketId = id(`t-${state}`);
  const actions: { action: string; data: Record<string, unknown> }[] = [{ action: "soldTicket", data: { eventId, ticketId, price: "5.00" } }];
  if (state === "checked_in" || state === "claimed") actions.push({ action: "scannedTicket", data: { ticketId } });
  if (state === "claimed") actions.push({ action: "claimedTicket", data: { ticketId, to: WALLET } });
  if (state === "invalidated") actions.push({ action: "invalidatedTicket", data: { ticketId } });
  const answer = await api.post("/stream", actions);
  expect(answer.body.data.map((entry: { status: string }) => entry.status)).toEqual(actions.map(() => "success"));
  expect((await api.get(`/api/v1/tickets/${ticketId}`)).body.state).toBe(state);
  return ticketId;
}

/** A ticket ready to receive a request whose items must all succeed after the refused one. */
async function freshTicket(): Promise<string> {
  return ticketIn("valid");
}

beforeAll(async () => {
  testApp = await startTestApp();
  ({ ticketeerId, api } = await testApp.client());
  eventId = id("ev-errors");
  expect((await api.post("/api/v1/events", eventBody(eventId, ticketeerId))).status).toBe(200);
});

afterAll(async () => {
  await testApp?.close();
});

describe("event_exists", () => {
  it("POST /api/v1/events with a registered eventId answers 409 {eventId, status, error} and changes nothing", async () => {
    const answer = await api.post("/api/v1/events", eventBody(eventId, ticketeerId, { eventName: "Changed" }));
    expect(answer.status).toBe(409);
    expect(answer.body).toEqual({ eventId, status: "error", error: { code: "event_exists", message: expect.any(String), field: "eventId" } });
    expect(keysOf(answer.body)).toEqual(["error", "eventId", "status"]);
    const view = await api.get(`/api/v1/events/${eventId}`);
    expect(view.body.eventName).toBe("Concert");
    expect(view.body.actions).toHaveLength(1);
  });

  it("a newEvent for a registered eventId is refused in /stream, the next action still succeeds", async () => {
    const other = id("ev-next");
    const answer = await api.post("/stream", [
      { action: "newEvent", data: newEventData(eventId) },
      { action: "newEvent", data: newEventData(other) },
      { action: "newEvent", data: newEventData(other) },
    ]);
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({
      status: "success",
      data: [
        streamRefused("newEvent", { eventId }, "event_exists", "eventId"),
        streamSuccess("newEvent", { eventId: other }),
        streamRefused("newEvent", { eventId: other }, "event_exists", "eventId"),
      ],
    });
  });
});

describe("event_not_found", () => {
  it("sold for an unknown event is refused; the next item is accepted; nothing of the refused one is stored", async () => {
    const [lost, kept] = [id("t-lost"), id("t-kept")];
    const answer = await api.post("/api/v1/sold", [soldItem("no-such-event", lost), soldItem(eventId, kept)]);
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual([refused(lost, "event_not_found", "eventId"), success(kept)]);
    expect(keysOf(answer.body[0])).toEqual(["error", "status", "ticketId"]);
    expect((await api.get(`/api/v1/tickets/${lost}`)).status).toBe(404);
    expect((await api.get(`/api/v1/tickets/${kept}`)).status).toBe(200);
  });

  it("updateEvent and soldTicket for an unknown event are refused in /stream", async () => {
    const ticketId = id("t-lost");
    const answer = await api.post("/stream", [
      { action: "updateEvent", data: { eventId: "no-such-event", eventName: "x" } },
      { action: "soldTicket", data: { eventId: "no-such-event", ticketId, price: "1" } },
      { action: "updateEvent", data: { eventId, eventName: "Renamed" } },
    ]);
    expect(answer.body.data).toEqual([
      streamRefused("updateEvent", { eventId: "no-such-event" }, "event_not_found", "eventId"),
      streamRefused("soldTicket", { eventId: "no-such-event", ticketId }, "event_not_found", "eventId"),
      streamSuccess("updateEvent", { eventId }),
    ]);
    expect((await api.get("/api/v1/events/no-such-event")).status).toBe(404);
  });
});

describe("event_cancelled", () => {
  /** An event of its own with a valid and a checked-in ticket, then cancelled. */
  async function cancelledEvent() {
    const cancelled = id("ev-cancelled");
    const [valid, checkedIn] = [id("t-valid"), id("t-in")];
    const setUp = await api.post("/stream", [
      { action: "newEvent", data: newEventData(cancelled) },
      { action: "soldTicket", data: { eventId: cancelled, ticketId: valid, price: "5.00" } },
      { action: "soldTicket", data: { eventId: cancelled, ticketId: checkedIn, price: "5.00" } },
      { action: "scannedTicket", data: { ticketId: checkedIn } },
    ]);
    expect(setUp.body.data.map((entry: { status: string }) => entry.status)).toEqual(Array(4).fill("success"));
    expect((await api.post(`/api/v1/events/${cancelled}/cancel`, undefined)).status).toBe(200);
    return { cancelled, valid, checkedIn };
  }

  it("every ticket action of the per-action endpoints is refused naming ticketId, a sale naming eventId; the next item still succeeds", async () => {
    const { cancelled, valid } = await cancelledEvent();
    const [late, kept] = [id("t-late"), id("t-kept")];
    expect((await api.post("/api/v1/sold", [soldItem(cancelled, late), soldItem(eventId, kept)])).body).toEqual([
      refused(late, "event_cancelled", "eventId"),
      success(kept),
    ]);
    for (const path of ["/api/v1/resold", "/api/v1/scanned", "/api/v1/checkedin", "/api/v1/invalidated"]) {
      const next = await freshTicket();
      const answer = await api.post(path, [
        { ticketId: valid, price: "6.00" },
        { ticketId: next, price: "6.00" },
      ]);
      expect(answer.body, path).toEqual([refused(valid, "event_cancelled", "ticketId"), success(next)]);
    }
    expect((await api.get(`/api/v1/tickets/${late}`)).status).toBe(404);
    expect((await api.get(`/api/v1/tickets/${valid}`)).body).toMatchObject({ state: "event_cancelled", checkedIn: false, invalidated: false, resales: 0 });
  });

  it("in /stream: a claim, a check-in, a metadata update and a second cancellation are refused, an updateEvent still taken", async () => {
    const { cancelled, valid, checkedIn } = await cancelledEvent();
    const answer = await api.post("/stream", [
      { action: "claimedTicket", data: { ticketId: checkedIn, to: WALLET } },
      { action: "scannedTicket", data: { ticketId: valid } },
      { action: "cancelledEvent", data: { eventId: cancelled } },
      { action: "updateTicket", data: { ticketId: valid, uri: "ipfs://bafybeigdyrzt5sfp7udm7hu76uh7y26nf3efuylqabf3oclgtqy55fbzdi" } },
      { action: "updateEvent", data: { eventId: cancelled, imageUrl: "https://img.example.com/cancelled.png" } },
    ]);
    expect(answer.body.data).toEqual([
      streamRefused("claimedTicket", { ticketId: checkedIn }, "event_cancelled", "ticketId"),
      streamRefused("scannedTicket", { ticketId: valid }, "event_cancelled", "ticketId"),
      streamRefused("cancelledEvent", { eventId: cancelled }, "event_cancelled", "eventId"),
      // The registry refuses a cancelled event's metadata updates: so does acceptance.
      streamRefused("updateTicket", { ticketId: valid }, "event_cancelled", "ticketId"),
      streamSuccess("updateEvent", { eventId: cancelled }),
    ]);
  });

  it("POST /api/v1/events/{eventId}/cancel answers 409 for an event cancelled already, 404 for an unknown or another organization's, 400 for no id", async () => {
    const { cancelled } = await cancelledEvent();
    const again = await api.post(`/api/v1/events/${cancelled}/cancel`, undefined);
    expect(again.status).toBe(409);
    expect(again.body).toEqual({
      eventId: cancelled,
      status: "error",
      error: { code: "event_cancelled", message: `Event ${cancelled} is cancelled.`, field: "eventId" },
    });
    const unknown = await api.post("/api/v1/events/no-such-event/cancel", undefined);
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({
      eventId: "no-such-event",
      status: "error",
      error: { code: "event_not_found", message: expect.any(String), field: "eventId" },
    });
    const other = await testApp.client();
    expect((await other.api.post(`/api/v1/events/${eventId}/cancel`, undefined)).body.error).toMatchObject({ code: "event_not_found", field: "eventId" });
    expect((await api.get(`/api/v1/events/${eventId}`)).body).toMatchObject({ cancelled: false });
    const tooLong = await api.post(`/api/v1/events/${"e".repeat(256)}/cancel`, undefined);
    expect(tooLong.status).toBe(400);
    expect(tooLong.body.error).toMatchObject({ code: "invalid_field", field: "eventId" });
  });
});

describe("ticket_exists", () => {
  it("selling a sold ticketId again is refused, in the same event, another event and the same request", async () => {
    const ticketId = await freshTicket();
    const otherEvent = id("ev-other");
    await api.post("/api/v1/events", eventBody(otherEvent, ticketeerId));
    const twice = id("t-twice");
    const answer = await api.post("/api/v1/sold", [
      soldItem(eventId, ticketId),
      soldItem(otherEvent, ticketId),
      soldItem(eventId, twice),
      soldItem(otherEvent, twice),
    ]);
    // A ticket_exists item of /sold carries the promise of the ticket's sale: a retried sale learns it.
    const sale = (await api.get(`/api/v1/tickets/${ticketId}`)).body.actions[0].actionPromise as string;
    expect(answer.body).toEqual([
      { ...refused(ticketId, "ticket_exists", "ticketId"), txPromise: sale },
      { ...refused(ticketId, "ticket_exists", "ticketId"), txPromise: sale },
      success(twice),
      { ...refused(twice, "ticket_exists", "ticketId"), txPromise: answer.body[2].txPromise },
    ]);
    const ticket = await api.get(`/api/v1/tickets/${twice}`);
    expect(ticket.body.eventId).toBe(eventId);
    expect(historyOf(ticket.body)).toEqual([["sold", "sold", "waiting_broadcast"]]);
    expect((await api.get(`/api/v1/events/${otherEvent}`)).body.ticketsSold).toBe(0);
  });
});

describe("ticket_not_found", () => {
  it.each(["resold", "scanned", "checkedin", "invalidated"])("POST /api/v1/%s of an unknown ticket", async (path) => {
    const kept = await freshTicket();
    const item = (ticketId: string) => (path === "resold" ? { ticketId, price: "3.00" } : { ticketId });
    const answer = await api.post(`/api/v1/${path}`, [item("no-such-ticket"), item(kept)]);
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual([refused("no-such-ticket", "ticket_not_found", "ticketId"), success(kept)]);
  });

  it("every ticket action of /stream for an unknown ticket", async () => {
    const data = {
      resoldTicket: { ticketId: "no-such-ticket", price: "1" },
      scannedTicket: { ticketId: "no-such-ticket" },
      checkedInTicket: { ticketId: "no-such-ticket" },
      invalidatedTicket: { ticketId: "no-such-ticket" },
      updateTicket: { ticketId: "no-such-ticket", uri: "ipfs://x" },
      claimedTicket: { ticketId: "no-such-ticket", to: WALLET },
    };
    const answer = await api.post(
      "/stream",
      Object.entries(data).map(([action, fields]) => ({ action, data: fields })),
    );
    expect(answer.body.data).toEqual(Object.keys(data).map((action) => streamRefused(action, { ticketId: "no-such-ticket" }, "ticket_not_found", "ticketId")));
    expect((await api.get("/api/v1/tickets/no-such-ticket")).status).toBe(404);
  });
});

describe("ticket_checked_in", () => {
  it("a checked-in ticket cannot be resold or invalidated", async () => {
    const ticketId = await ticketIn("checked_in");
    const kept = await freshTicket();
    const resold = await api.post("/api/v1/resold", [
      { ticketId, price: "9.00" },
      { ticketId: kept, price: "9.00" },
    ]);
    expect(resold.body).toEqual([refused(ticketId, "ticket_checked_in", "ticketId"), success(kept)]);
    const invalidated = await api.post("/api/v1/invalidated", [{ ticketId }, { ticketId: kept }]);
    expect(invalidated.body).toEqual([refused(ticketId, "ticket_checked_in", "ticketId"), success(kept)]);
    const ticket = await api.get(`/api/v1/tickets/${ticketId}`);
    expect(ticket.body).toMatchObject({ state: "checked_in", invalidated: false, resales: 0, price: "5.00" });
    expect(historyOf(ticket.body).map(([action]) => action)).toEqual(["sold", "scanned"]);
  });
});

describe("ticket_invalidated", () => {
  it("an invalidated ticket refuses resold, scanned, checkedin, invalidated again, updateTicket and claimedTicket", async () => {
    const ticketId = await ticketIn("invalidated");
    const kept = await freshTicket();
    expect(
      (
        await api.post("/api/v1/resold", [
          { ticketId, price: "9.00" },
          { ticketId: kept, price: "9.00" },
        ])
      ).body,
    ).toEqual([refused(ticketId, "ticket_invalidated", "ticketId"), success(kept)]);
    for (const path of ["scanned", "checkedin", "invalidated"]) {
      const other = await freshTicket();
      expect((await api.post(`/api/v1/${path}`, [{ ticketId }, { ticketId: other }])).body, path).toEqual([
        refused(ticketId, "ticket_invalidated", "ticketId"),
        success(other),
      ]);
    }
    const stream = await api.post("/stream", [
      { action: "updateTicket", data: { ticketId, uri: "ipfs://new" } },
      { action: "claimedTicket", data: { ticketId, to: WALLET } },
      { action: "scannedTicket", data: { ticketId } },
      { action: "updateTicket", data: { ticketId: kept, uri: "ipfs://kept" } },
    ]);
    expect(stream.body.data).toEqual([
      streamRefused("updateTicket", { ticketId }, "ticket_invalidated", "ticketId"),
      streamRefused("claimedTicket", { ticketId }, "ticket_invalidated", "ticketId"),
      streamRefused("scannedTicket", { ticketId }, "ticket_invalidated", "ticketId"),
      streamSuccess("updateTicket", { ticketId: kept }),
    ]);
    const ticket = await api.get(`/api/v1/tickets/${ticketId}`);
    expect(ticket.body).toMatchObject({ state: "invalidated", checkedIn: false, claimed: false, uri: "" });
    expect(historyOf(ticket.body).map(([action]) => action)).toEqual(["sold", "invalidated"]);
  });
});

describe("ticket_claimed and ticket_not_checked_in", () => {
  it("a claimed ticket cannot be resold or claimed again", async () => {
    const ticketId = await ticketIn("claimed");
    const kept = await freshTicket();
    expect(
      (
        await api.post("/api/v1/resold", [
          { ticketId, price: "1" },
          { ticketId: kept, price: "1" },
        ])
      ).body,
    ).toEqual([refused(ticketId, "ticket_claimed", "ticketId"), success(kept)]);
    const stream = await api.post("/stream", [
      { action: "claimedTicket", data: { ticketId, to: WALLET } },
      { action: "resoldTicket", data: { ticketId, price: "1" } },
    ]);
    expect(stream.body.data).toEqual([
      streamRefused("claimedTicket", { ticketId }, "ticket_claimed", "ticketId"),
      streamRefused("resoldTicket", { ticketId }, "ticket_claimed", "ticketId"),
    ]);
    expect(historyOf((await api.get(`/api/v1/tickets/${ticketId}`)).body).map(([action]) => action)).toEqual(["sold", "scanned", "claimed"]);
  });

  it("a ticket that is not checked in cannot be claimed", async () => {
    const ticketId = await freshTicket();
    const stream = await api.post("/stream", [
      { action: "claimedTicket", data: { ticketId, to: WALLET } },
      { action: "scannedTicket", data: { ticketId } },
      { action: "claimedTicket", data: { ticketId, to: WALLET } },
    ]);
    expect(stream.body.data).toEqual([
      streamRefused("claimedTicket", { ticketId }, "ticket_not_checked_in", "ticketId"),
      streamSuccess("scannedTicket", { ticketId }),
      streamSuccess("claimedTicket", { ticketId }),
    ]);
  });
});

describe("invalid_field", () => {
  it.each([
    ["price", "1.0000001"],
    ["price", "abc"],
    ["price", 10],
    ["price", undefined],
    ["orderTime", -1],
    ["orderTime", 1.5],
    ["orderTime", "18446744073709551616"],
    ["orderTime", "0123"],
    ["ticketId", "t".repeat(256)],
    ["ticketId", ""],
    ["uri", "not a uri"],
  ])("sold with %s %j is refused naming the field; the next item is accepted", async (field, value) => {
    const ticketId = field === "ticketId" ? (value as string) : id("t-bad");
    const kept = id("t-kept");
    const answer = await api.post("/api/v1/sold", [soldItem(eventId, ticketId, { [field]: value }), soldItem(eventId, kept)]);
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual([refused(ticketId, "invalid_field", field), success(kept)]);
    if (ticketId) expect((await api.get(`/api/v1/tickets/${encodeURIComponent(ticketId)}`)).status).toBe(404);
  });

  it("a price with zeros past the sixth decimal place is accepted", async () => {
    const ticketId = id("t-zeros");
    expect((await api.post("/api/v1/sold", [soldItem(eventId, ticketId, { price: "1.0000000" })])).body).toEqual([success(ticketId)]);
  });

  it("an orderTime above 2^53 - 1 is refused as a JSON number, accepted as a decimal string up to 2^64 - 1", async () => {
    const [asNumber, asMaxNumber, asString] = [id("t-num"), id("t-maxnum"), id("t-str")];
    // JSON.stringify cannot write these numbers: the body is written by hand.
    const raw =
      `[{"eventId":"${eventId}","ticketId":"${asNumber}","price":"1","orderTime":9007199254740993},` +
      `{"eventId":"${eventId}","ticketId":"${asMaxNumber}","price":"1","orderTime":18446744073709551615},` +
      `{"eventId":"${eventId}","ticketId":"${asString}","price":"1","orderTime":"18446744073709551615"}]`;
    const answer = await api.request("POST", "/api/v1/sold", raw);
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual([refused(asNumber, "invalid_field", "orderTime"), refused(asMaxNumber, "invalid_field", "orderTime"), success(asString)]);
    expect(answer.body[0].error.message).toMatch(/string/);
    const ticket = await api.get(`/api/v1/tickets/${asString}`);
    expect(ticket.body.orderTime).toBe("18446744073709551615");
    // The largest safe integer is fine as a number.
    const safe = id("t-safe");
    expect((await api.post("/api/v1/sold", [soldItem(eventId, safe, { orderTime: Number.MAX_SAFE_INTEGER })])).body).toEqual([success(safe)]);
    expect((await api.get(`/api/v1/tickets/${safe}`)).body.orderTime).toBe(Number.MAX_SAFE_INTEGER);
  });

  it.each([
    ["currency", { currency: "EURO" }],
    ["currency", { currency: "eur" }],
    ["currency", { currency: "XYZ" }],
    ["currency", { currency: undefined }],
    ["callbackUrl", { callbackUrl: "http://integrator.example.com/callbacks" }],
    ["callbackUrl", { callbackUrl: undefined }],
    ["shopUrl", { shopUrl: "ftp://shop.example.com" }],
    ["latitude", { latitude: 91 }],
    ["latitude", { latitude: "52.1" }],
    ["longitude", { longitude: -180.5 }],
    ["eventName", { eventName: "n".repeat(256) }],
    ["startTime", { startTime: -5 }],
    ["endTime", { startTime: 1_900_000_000, endTime: 1_899_999_999 }],
  ])("POST /api/v1/events with a bad %s answers 400 invalid_field naming it", async (field, extra) => {
    const badEvent = id("ev-bad");
    const answer = await api.post("/api/v1/events", eventBody(badEvent, ticketeerId, extra));
    expect(answer.status).toBe(400);
    expect(answer.body).toEqual({ eventId: badEvent, status: "error", error: { code: "invalid_field", message: expect.any(String), field } });
    expect((await api.get(`/api/v1/events/${badEvent}`)).status).toBe(404);
  });

  it("an eventId of 256 characters is refused, one of 255 accepted", async () => {
    const long = "e".repeat(256);
    const answer = await api.post("/api/v1/events", eventBody(long, ticketeerId));
    expect(answer.status).toBe(400);
    expect(answer.body).toEqual({ eventId: long, status: "error", error: { code: "invalid_field", message: expect.any(String), field: "eventId" } });
    const max = "e".repeat(254) + "x";
    expect((await api.post("/api/v1/events", eventBody(max, ticketeerId))).status).toBe(200);
    expect((await api.get(`/api/v1/events/${max}`)).body.eventId).toBe(max);
  });

  it("in /stream: endTime before startTime, a bad currency and a 256-character eventId, then a valid action", async () => {
    const [a, b, c] = [id("ev-a"), id("ev-b"), "s".repeat(256)];
    const answer = await api.post("/stream", [
      { action: "newEvent", data: newEventData(a, { startTime: "1900000000", endTime: "1800000000" }) },
      { action: "updateEvent", data: { eventId, currency: "eur" } },
      { action: "updateEvent", data: { eventId, endTime: 5, startTime: 6 } },
      { action: "newEvent", data: newEventData(c) },
      { action: "newEvent", data: newEventData(b) },
    ]);
    expect(answer.body.data).toEqual([
      streamRefused("newEvent", { eventId: a }, "invalid_field", "endTime"),
      streamRefused("updateEvent", { eventId }, "invalid_field", "currency"),
      streamRefused("updateEvent", { eventId }, "invalid_field", "endTime"),
      streamRefused("newEvent", { eventId: c }, "invalid_field", "eventId"),
      streamSuccess("newEvent", { eventId: b }),
    ]);
    expect((await api.get(`/api/v1/events/${a}`)).status).toBe(404);
    expect((await api.get(`/api/v1/events/${eventId}`)).body.currency).toBe("EUR");
  });

  it("a claim to an address with a wrong mixed-case checksum is refused; lowercase and checksummed are accepted", async () => {
    const [bad, lower] = [await ticketIn("checked_in"), await ticketIn("checked_in")];
    const answer = await api.post("/stream", [
      { action: "claimedTicket", data: { ticketId: bad, to: WALLET_BAD_CHECKSUM } },
      { action: "claimedTicket", data: { ticketId: bad, to: "0x1234" } },
      { action: "claimedTicket", data: { ticketId: bad } },
      { action: "claimedTicket", data: { ticketId: lower, to: WALLET.toLowerCase() } },
      { action: "claimedTicket", data: { ticketId: bad, to: WALLET } },
    ]);
    expect(answer.body.data).toEqual([
      streamRefused("claimedTicket", { ticketId: bad }, "invalid_field", "to"),
      streamRefused("claimedTicket", { ticketId: bad }, "invalid_field", "to"),
      streamRefused("claimedTicket", { ticketId: bad }, "invalid_field", "to"),
      streamSuccess("claimedTicket", { ticketId: lower }),
      streamSuccess("claimedTicket", { ticketId: bad }),
    ]);
    expect((await api.get(`/api/v1/tickets/${lower}`)).body.claimedTo).toBe(WALLET);
  });

  it("stream data that is not an object is refused naming data", async () => {
    const answer = await api.post("/stream", [{ action: "scannedTicket", data: "x" }, { action: "scannedTicket" }]);
    expect(answer.body.data).toEqual([
      streamRefused("scannedTicket", { ticketId: null }, "invalid_field", "data"),
      streamRefused("scannedTicket", { ticketId: null }, "invalid_field", "data"),
    ]);
  });
});

describe("invalid_item, unknown_action, ticketeer_mismatch", () => {
  it("items that are not objects are refused with invalid_item and a null ticketId; the rest is accepted", async () => {
    const kept = id("t-kept");
    const answer = await api.post("/api/v1/sold", [42, "t-1", null, [soldItem(eventId, "t-in-array")], soldItem(eventId, kept)]);
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual([
      refused(null, "invalid_item"),
      refused(null, "invalid_item"),
      refused(null, "invalid_item"),
      refused(null, "invalid_item"),
      success(kept),
    ]);
    expect((await api.get("/api/v1/tickets/t-in-array")).status).toBe(404);
  });

  it("a /stream entry that is not an object is invalid_item; an unknown action is unknown_action", async () => {
    const kept = id("t-kept");
    const answer = await api.post("/stream", [
      7,
      null,
      { action: "dance", data: { ticketId: kept } },
      { data: { ticketId: kept } },
      { action: "soldTicket", data: { eventId, ticketId: kept, price: "2.00" } },
    ]);
    expect(answer.status).toBe(200);
    expect(answer.body.status).toBe("success");
    expect(answer.body.data).toEqual([
      { status: "error", action: null, error: { code: "invalid_item", message: expect.any(String) } },
      { status: "error", action: null, error: { code: "invalid_item", message: expect.any(String) } },
      { status: "error", action: "dance", error: { code: "unknown_action", message: expect.any(String), field: "action" } },
      { status: "error", action: null, error: { code: "unknown_action", message: expect.any(String), field: "action" } },
      streamSuccess("soldTicket", { eventId, ticketId: kept }),
    ]);
  });

  it("POST /api/v1/events with another organization's ticketeerId answers 400 ticketeer_mismatch and stores nothing", async () => {
    const other = await testApp.organization();
    const mismatched = id("ev-mismatch");
    const answer = await api.post("/api/v1/events", eventBody(mismatched, other.ticketeerId));
    expect(answer.status).toBe(400);
    expect(answer.body).toEqual({
      eventId: mismatched,
      status: "error",
      error: { code: "ticketeer_mismatch", message: expect.any(String), field: "ticketeerId" },
    });
    expect((await api.get(`/api/v1/events/${mismatched}`)).status).toBe(404);
    expect((await apiClient(testApp.baseUrl, other.key).get(`/api/v1/events/${mismatched}`)).status).toBe(404);

    const stream = await api.post("/stream", [{ action: "newEvent", data: { ...newEventData(mismatched), ticketeerId: other.ticketeerId } }]);
    expect(stream.body.data).toEqual([streamRefused("newEvent", { eventId: mismatched }, "ticketeer_mismatch", "ticketeerId")]);
  });

  it("POST /api/v1/events without ticketeerId is invalid_field, with a body that is not an object invalid_body", async () => {
    const missing = id("ev-noteer");
    const answer = await api.post("/api/v1/events", newEventData(missing));
    expect(answer.status).toBe(400);
    expect(answer.body).toEqual({ eventId: missing, status: "error", error: { code: "invalid_field", message: expect.any(String), field: "ticketeerId" } });
    const array = await api.post("/api/v1/events", [eventBody(missing, ticketeerId)]);
    expect(array.status).toBe(400);
    expect(array.body).toEqual({ status: "error", error: { code: "invalid_body", message: expect.any(String) } });
    for (const body of [[], "event", 42, null]) {
      const refused = await api.post("/api/v1/events", JSON.stringify(body));
      expect(refused.status).toBe(400);
      expect(refused.body).toEqual({ status: "error", error: { code: "invalid_body", message: "The request body must be a JSON object: one event." } });
    }
    expect((await api.get(`/api/v1/events/${missing}`)).status).toBe(404);
  });
});
