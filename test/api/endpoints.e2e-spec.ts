import { createHash } from "node:crypto";

import { AbiCoder, getBytes } from "ethers";
import { DataSource } from "typeorm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { apiClient } from "../support/api-client";
import { CALLBACK_URL, eventBody, historyOf, id, keysOf, newEventData, soldItem, UUID, WALLET, WALLET_LOWERCASE } from "../support/fixtures";
import { startTestApp, type TestApp } from "../support/test-app";

/**
 * Every endpoint's success answer, field by field, and what the read endpoints show afterwards.
 */
let testApp: TestApp;
let api: ReturnType<typeof apiClient>;
let ticketeerId: string;

const ISO_TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const TICKET_RESULT_KEYS = ["status", "ticketId", "txPromise"];
const ACTION_VIEW_KEYS = [
  "acceptedAt",
  "action",
  "actionPromise",
  "blockHash",
  "blockNumber",
  "error",
  "requestedAs",
  "status",
  "transfer",
  "txHash",
  "updatedAt",
];

const eventKey = (ticketeer: string, eventId: string) =>
  "0x" +
  createHash("sha256")
    .update(getBytes(AbiCoder.defaultAbiCoder().encode(["string", "string"], [ticketeer, eventId])))
    .digest("hex");

const tokenId = (eventIndex: number | string, serial: number) => ((BigInt(eventIndex) << 64n) | BigInt(serial)).toString();

/** A waiting action of the history, as the read views show it. */
const waitingAction = (promise: string, action: string, requestedAs: string, status = "waiting_broadcast") => ({
  actionPromise: promise,
  action,
  requestedAs,
  status,
  txHash: null,
  blockNumber: null,
  blockHash: null,
  error: null,
  transfer: null,
  acceptedAt: expect.stringMatching(ISO_TIME),
  updatedAt: expect.stringMatching(ISO_TIME),
});

async function registerEvent(eventId: string, extra: Record<string, unknown> = {}): Promise<string> {
  const answer = await api.post("/api/v1/events", eventBody(eventId, ticketeerId, extra));
  expect(answer.status).toBe(200);
  return answer.body.txPromise;
}

beforeAll(async () => {
  testApp = await startTestApp();
  ({ ticketeerId, api } = await testApp.client());
});

afterAll(async () => {
  await testApp?.close();
});

describe("POST /api/v1/events", () => {
  it("answers exactly {txPromise, eventId, status} and the event reads back field by field", async () => {
    const eventId = id("ev-full");
    const answer = await api.post("/api/v1/events", {
      eventId,
      eventName: "Concert in the Park",
      ticketeerId,
      ticketeerName: "Example Tickets B.V.",
      currency: "EUR",
      shopUrl: "https://shop.example.com/concert",
      imageUrl: "https://img.example.com/concert.png",
      description: "Chamber music under the trees.",
      ticketImageUrl: "ipfs://bafy/ticket.png",
      latitude: 52.3731,
      longitude: 4.8922,
      startTime: 1_900_000_000,
      endTime: "1900010800",
      callbackUrl: CALLBACK_URL,
    });
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ txPromise: expect.stringMatching(UUID), eventId, status: "success" });
    expect(keysOf(answer.body)).toEqual(["eventId", "status", "txPromise"]);

    const view = await api.get(`/api/v1/events/${eventId}`);
    expect(view.status).toBe(200);
    expect(view.body).toEqual({
      eventId,
      eventName: "Concert in the Park",
      ticketeerId,
      ticketeerName: "Example Tickets B.V.",
      currency: "EUR",
      shopUrl: "https://shop.example.com/concert",
      imageUrl: "https://img.example.com/concert.png",
      description: "Chamber music under the trees.",
      ticketImageUrl: "ipfs://bafy/ticket.png",
      latitude: 52.3731,
      longitude: 4.8922,
      startTime: 1_900_000_000,
      endTime: 1_900_010_800,
      callbackUrl: CALLBACK_URL,
      callbackFailingSince: null,
      callbackDisabledAt: null,
      ticketsSold: 0,
      cancelled: false,
      cancelledAt: null,
      chain: { eventIndex: expect.any(Number), eventKey: eventKey(ticketeerId, eventId), registered: false, cancelled: false },
      actions: [waitingAction(answer.body.txPromise, "newEvent", "events")],
    });
    expect(view.body.chain.eventIndex).toBeGreaterThanOrEqual(1);
  });

  it("fills the defaults of the validation table for fields left out", async () => {
    const eventId = id("ev-min");
    await registerEvent(eventId, { eventName: undefined });
    const view = await api.get(`/api/v1/events/${eventId}`);
    expect(view.body).toMatchObject({
      eventName: "",
      ticketeerName: "",
      shopUrl: "",
      imageUrl: "",
      latitude: 0,
      longitude: 0,
      startTime: 0,
      endTime: 0,
      currency: "EUR",
      callbackUrl: CALLBACK_URL,
    });
  });

  it("GET /api/v1/actions/{txPromise} answers the event action's status", async () => {
    const eventId = id("ev-action");
    const txPromise = await registerEvent(eventId);
    const answer = await api.get(`/api/v1/actions/${txPromise}`);
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ ...waitingAction(txPromise, "newEvent", "events"), eventId, ticketId: null });
    expect(keysOf(answer.body)).toEqual([...ACTION_VIEW_KEYS, "eventId", "ticketId"].sort());
  });
});

describe("POST /api/v1/events/{eventId}/cancel", () => {
  it("answers exactly {txPromise, eventId, status}; the event and every one of its tickets read back cancelled, their own state kept", async () => {
    const eventId = id("ev-cancel");
    await registerEvent(eventId);
    const [t1, t2] = [id("ct1"), id("ct2")];
    const sold = await api.post("/api/v1/sold", [soldItem(eventId, t1), soldItem(eventId, t2)]);
    expect(sold.body.map((item: { status: string }) => item.status)).toEqual(["success", "success"]);
    expect((await api.post("/api/v1/scanned", [{ ticketId: t2 }])).body[0].status).toBe("success");

    const answer = await api.post(`/api/v1/events/${eventId}/cancel`, undefined);
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ txPromise: expect.stringMatching(UUID), eventId, status: "success" });
    expect(keysOf(answer.body)).toEqual(["eventId", "status", "txPromise"]);

    const event = await api.get(`/api/v1/events/${eventId}`);
    expect(event.body).toMatchObject({ cancelled: true, cancelledAt: expect.stringMatching(ISO_TIME), ticketsSold: 2, chain: { cancelled: false } });
    expect(event.body.actions).toEqual([expect.objectContaining({ action: "newEvent" }), waitingAction(answer.body.txPromise, "cancelledEvent", "cancel")]);
    expect((await api.get(`/api/v1/tickets/${t1}`)).body).toMatchObject({
      state: "event_cancelled",
      eventCancelled: true,
      checkedIn: false,
      chain: { eventCancelled: false },
    });
    expect((await api.get(`/api/v1/tickets/${t2}`)).body).toMatchObject({ state: "event_cancelled", eventCancelled: true, checkedIn: true });
    expect((await api.get(`/api/v1/actions/${answer.body.txPromise}`)).body).toEqual({
      ...waitingAction(answer.body.txPromise, "cancelledEvent", "cancel"),
      eventId,
      ticketId: null,
    });
  });

  it("takes the stream action cancelledEvent, echoing its eventId, after the event's actions in the same request", async () => {
    const eventId = id("ev-stream-cancel");
    const ticketId = id("sct");
    const answer = await api.post("/stream", [
      { action: "newEvent", data: newEventData(eventId) },
      { action: "soldTicket", data: { eventId, ticketId, price: "10.00" } },
      { action: "cancelledEvent", data: { eventId } },
      { action: "scannedTicket", data: { ticketId } },
    ]);
    expect(answer.body.data.map(keysOf)[2]).toEqual(["action", "actionPromise", "eventId", "status"]);
    expect(
      answer.body.data.map((entry: { status: string; action: string; error?: { code: string; field: string } }) => [entry.action, entry.status, entry.error]),
    ).toEqual([
      ["newEvent", "success", undefined],
      ["soldTicket", "success", undefined],
      ["cancelledEvent", "success", undefined],
      ["scannedTicket", "error", expect.objectContaining({ code: "event_cancelled", field: "ticketId" })],
    ]);
    expect((await api.get(`/api/v1/actions/${answer.body.data[2].actionPromise}`)).body).toMatchObject({
      action: "cancelledEvent",
      requestedAs: "cancelledEvent",
      eventId,
    });
  });
});

describe("per-action ticket endpoints", () => {
  it("sold, resold, scanned, checkedin and invalidated answer exactly {txPromise, ticketId, status} in request order", async () => {
    const eventId = id("ev-tickets");
    await registerEvent(eventId);
    // Ids that do not sort in request order: the answer must follow the request.
    const [t1, t2, t3] = ["zz-" + id("t"), "mm-" + id("t"), "aa-" + id("t")];

    const sold = await api.post("/api/v1/sold", [soldItem(eventId, t1), soldItem(eventId, t2, { price: "12.5" }), soldItem(eventId, t3)]);
    expect(sold.status).toBe(200);
    expect(sold.body).toEqual([t1, t2, t3].map((ticketId) => ({ txPromise: expect.stringMatching(UUID), ticketId, status: "success" })));
    for (const entry of sold.body) expect(keysOf(entry)).toEqual(TICKET_RESULT_KEYS);
    expect(new Set(sold.body.map((entry: { txPromise: string }) => entry.txPromise)).size).toBe(3);

    const answers = {
      resold: await api.post("/api/v1/resold", [{ ticketId: t1, orderTime: 1_750_000_100, price: "15.00" }]),
      scanned: await api.post("/api/v1/scanned", [{ ticketId: t1, orderTime: 1_750_000_200 }]),
      checkedin: await api.post("/api/v1/checkedin", [{ ticketId: t2, orderTime: 1_750_000_300 }, { ticketId: t1 }]),
      invalidated: await api.post("/api/v1/invalidated", [{ ticketId: t3, orderTime: 1_750_000_400 }]),
    };
    const expected = { resold: [t1], scanned: [t1], checkedin: [t2, t1], invalidated: [t3] };
    for (const [path, answer] of Object.entries(answers)) {
      expect(answer.status, path).toBe(200);
      expect(answer.body, path).toEqual(
        expected[path as keyof typeof expected].map((ticketId) => ({ txPromise: expect.stringMatching(UUID), ticketId, status: "success" })),
      );
      for (const entry of answer.body) expect(keysOf(entry)).toEqual(TICKET_RESULT_KEYS);
    }

    // The first ticket: sold, resold, scanned, then scanned again through /checkedin (a repeated scan is accepted).
    const ticket = await api.get(`/api/v1/tickets/${t1}`);
    expect(ticket.status).toBe(200);
    const event = await api.get(`/api/v1/events/${eventId}`);
    const eventIndex = event.body.chain.eventIndex;
    expect(event.body.ticketsSold).toBe(3);
    expect(event.body.actions).toHaveLength(1); // ticket actions are on the tickets
    expect(ticket.body).toEqual({
      ticketId: t1,
      eventId,
      state: "checked_in",
      checkedIn: true,
      invalidated: false,
      claimed: false,
      eventCancelled: false,
      claimedTo: null,
      holder: null, // the sale is not confirmed: no chain here
      resales: 1,
      price: "15.00",
      uri: "",
      name: "",
      description: "",
      animationUrl: "",
      attributes: [],
      orderTime: 1_750_000_100,
      chain: {
        tokenId: tokenId(eventIndex, 1),
        eventIndex,
        serial: 1,
        minted: false,
        checkedIn: false,
        invalidated: false,
        claimed: false,
        eventCancelled: false,
      },
      actions: [
        waitingAction(sold.body[0].txPromise, "sold", "sold"),
        waitingAction(answers.resold.body[0].txPromise, "resold", "resold"),
        waitingAction(answers.scanned.body[0].txPromise, "scanned", "scanned"),
        waitingAction(answers.checkedin.body[1].txPromise, "scanned", "checkedin"),
      ],
    });

    const second = await api.get(`/api/v1/tickets/${t2}`);
    expect(second.body).toMatchObject({ state: "checked_in", price: "12.5", resales: 0, chain: { tokenId: tokenId(eventIndex, 2), serial: 2 } });
    expect(historyOf(second.body)).toEqual([
      ["sold", "sold", "waiting_broadcast"],
      ["scanned", "checkedin", "waiting_broadcast"],
    ]);

    const third = await api.get(`/api/v1/tickets/${t3}`);
    expect(third.body).toMatchObject({ state: "invalidated", checkedIn: false, invalidated: true, chain: { tokenId: tokenId(eventIndex, 3), serial: 3 } });
    expect(historyOf(third.body)).toEqual([
      ["sold", "sold", "waiting_broadcast"],
      ["invalidated", "invalidated", "waiting_broadcast"],
    ]);

    // The status endpoint for a txPromise of a ticket action.
    const action = await api.get(`/api/v1/actions/${answers.checkedin.body[0].txPromise}`);
    expect(action.status).toBe(200);
    expect(action.body).toEqual({ ...waitingAction(answers.checkedin.body[0].txPromise, "scanned", "checkedin"), eventId, ticketId: t2 });
  });

  it("defaults orderTime to the time of acceptance", async () => {
    const eventId = id("ev-now");
    await registerEvent(eventId);
    const ticketId = id("t-now");
    const before = Math.floor(Date.now() / 1000);
    const sold = await api.post("/api/v1/sold", [{ eventId, ticketId, price: "1" }]);
    const after = Math.ceil(Date.now() / 1000);
    expect(sold.body[0].status).toBe("success");
    const ticket = await api.get(`/api/v1/tickets/${ticketId}`);
    expect(ticket.body.orderTime).toBeGreaterThanOrEqual(before);
    expect(ticket.body.orderTime).toBeLessThanOrEqual(after);
  });
});

describe.each(["/stream", "/api/v1/stream"])("POST %s", (path) => {
  it("answers {status, data} with one entry per action, each with exactly its ids and actionPromise", async () => {
    const eventId = id("ev-stream");
    const [t1, t2] = [id("st1"), id("st2")];
    const answer = await api.post(path, [
      { action: "newEvent", data: newEventData(eventId) },
      { action: "updateEvent", data: { eventId, imageUrl: "https://img.example.com/new.png" } },
      { action: "soldTicket", data: { eventId, ticketId: t1, price: "10.00", uri: "ipfs://meta/1.json" } },
      { action: "soldTicket", data: { eventId, ticketId: t2, price: "11.00" } },
      { action: "updateTicket", data: { ticketId: t1, uri: "ipfs://meta/1b.json" } },
      { action: "resoldTicket", data: { ticketId: t1, price: "20.00" } },
      { action: "scannedTicket", data: { ticketId: t1 } },
      { action: "checkedInTicket", data: { ticketId: t1 } },
      { action: "claimedTicket", data: { ticketId: t1, to: WALLET_LOWERCASE } },
      { action: "invalidatedTicket", data: { ticketId: t2 } },
    ]);
    expect(answer.status).toBe(200);
    expect(keysOf(answer.body)).toEqual(["data", "status"]);
    expect(answer.body.status).toBe("success");
    const promise = expect.stringMatching(UUID);
    expect(answer.body.data).toEqual([
      { status: "success", action: "newEvent", eventId, actionPromise: promise },
      { status: "success", action: "updateEvent", eventId, actionPromise: promise },
      { status: "success", action: "soldTicket", eventId, ticketId: t1, actionPromise: promise },
      { status: "success", action: "soldTicket", eventId, ticketId: t2, actionPromise: promise },
      { status: "success", action: "updateTicket", ticketId: t1, actionPromise: promise },
      { status: "success", action: "resoldTicket", ticketId: t1, actionPromise: promise },
      { status: "success", action: "scannedTicket", ticketId: t1, actionPromise: promise },
      { status: "success", action: "checkedInTicket", ticketId: t1, actionPromise: promise },
      { status: "success", action: "claimedTicket", ticketId: t1, actionPromise: promise },
      { status: "success", action: "invalidatedTicket", ticketId: t2, actionPromise: promise },
    ]);
    // toEqual ignores undefined properties: check the exact key sets too.
    const keySets = answer.body.data.map(keysOf);
    expect(keySets[0]).toEqual(["action", "actionPromise", "eventId", "status"]);
    expect(keySets[1]).toEqual(["action", "actionPromise", "eventId", "status"]);
    expect(keySets[2]).toEqual(["action", "actionPromise", "eventId", "status", "ticketId"]);
    for (const keys of keySets.slice(4)) expect(keys).toEqual(["action", "actionPromise", "status", "ticketId"]);
    const promises = answer.body.data.map((entry: { actionPromise: string }) => entry.actionPromise);

    const event = await api.get(`/api/v1/events/${eventId}`);
    expect(event.body).toMatchObject({ imageUrl: "https://img.example.com/new.png", ticketsSold: 2 });
    expect(event.body.actions).toEqual([waitingAction(promises[0], "newEvent", "newEvent"), waitingAction(promises[1], "updateEvent", "updateEvent")]);

    const ticket = await api.get(`/api/v1/tickets/${t1}`);
    expect(ticket.body).toMatchObject({
      state: "claimed",
      checkedIn: true,
      claimed: true,
      claimedTo: WALLET, // stored in its checksummed form
      resales: 1,
      price: "20.00",
      uri: "ipfs://meta/1b.json",
      chain: { tokenId: tokenId(event.body.chain.eventIndex, 1), serial: 1 },
    });
    expect(ticket.body.actions).toEqual([
      waitingAction(promises[2], "sold", "soldTicket"),
      waitingAction(promises[4], "updateTicket", "updateTicket"),
      waitingAction(promises[5], "resold", "resoldTicket"),
      waitingAction(promises[6], "scanned", "scannedTicket"),
      waitingAction(promises[7], "scanned", "checkedInTicket"),
      waitingAction(promises[8], "claimed", "claimedTicket"),
    ]);
    const second = await api.get(`/api/v1/tickets/${t2}`);
    expect(second.body).toMatchObject({ state: "invalidated", invalidated: true, chain: { tokenId: tokenId(event.body.chain.eventIndex, 2) } });

    // GET /api/v1/actions/{actionPromise}: a sale and an updateTicket, both on their way to the chain.
    const sold = await api.get(`/api/v1/actions/${promises[2]}`);
    expect(sold.body).toEqual({ ...waitingAction(promises[2], "sold", "soldTicket"), eventId, ticketId: t1 });
    const update = await api.get(`/api/v1/actions/${promises[4]}`);
    expect(update.status).toBe(200);
    expect(update.body).toEqual({ ...waitingAction(promises[4], "updateTicket", "updateTicket"), eventId, ticketId: t1 });
    const updateEvent = await api.get(`/api/v1/actions/${promises[1]}`);
    expect(updateEvent.body).toEqual({ ...waitingAction(promises[1], "updateEvent", "updateEvent"), eventId, ticketId: null });
  });
});

describe("GET /api/v1/actions/{promise}", () => {
  it("answers 404 action_not_found for an unknown promise and for a string that is not a UUID", async () => {
    for (const promise of ["0190a0b1-0000-7000-8000-000000000000", "not-a-uuid"]) {
      const answer = await api.get(`/api/v1/actions/${promise}`);
      expect(answer.status).toBe(404);
      expect(answer.body).toEqual({ status: "error", error: { code: "action_not_found", message: expect.any(String) } });
    }
  });

  it("answers no_broadcast_required for an updateEvent that changes only its callbackUrl", async () => {
    const eventId = id("ev-offchain");
    await registerEvent(eventId);
    const answer = await api.post("/stream", [{ action: "updateEvent", data: { eventId, callbackUrl: "https://other.example.com/cb" } }]);
    const promise = answer.body.data[0].actionPromise;
    const status = await api.get(`/api/v1/actions/${promise}`);
    expect(status.body).toMatchObject({ action: "updateEvent", status: "no_broadcast_required", eventId, ticketId: null });
    expect((await api.get(`/api/v1/events/${eventId}`)).body.callbackUrl).toBe("https://other.example.com/cb");
  });
});

describe("unknown fields", () => {
  it("are ignored and never stored or shown", async () => {
    const eventId = id("ev-extra");
    const created = await api.post(
      "/api/v1/events",
      eventBody(eventId, ticketeerId, { secretNote: "leak-event-1", eventIndex: 999, organizationId: "leak-org" }),
    );
    expect(created.status).toBe(200);
    expect(keysOf(created.body)).toEqual(["eventId", "status", "txPromise"]);
    const ticketId = id("t-extra");
    const sold = await api.post("/api/v1/sold", [soldItem(eventId, ticketId, { secretNote: "leak-ticket-1", checkedIn: true, serial: 77, tokenId: "5" })]);
    expect(sold.body).toEqual([{ txPromise: expect.stringMatching(UUID), ticketId, status: "success" }]);
    const streamed = await api.post("/stream", [
      { action: "updateTicket", data: { ticketId, uri: "ipfs://x", secretNote: "leak-ticket-2", claimed: true }, extra: "leak-entry" },
    ]);
    expect(streamed.body.data[0]).toEqual({ status: "success", action: "updateTicket", ticketId, actionPromise: expect.stringMatching(UUID) });

    const event = await api.get(`/api/v1/events/${eventId}`);
    const ticket = await api.get(`/api/v1/tickets/${ticketId}`);
    const action = await api.get(`/api/v1/actions/${sold.body[0].txPromise}`);
    for (const view of [event, ticket, action]) {
      const text = JSON.stringify(view.body);
      expect(text).not.toContain("secretNote");
      expect(text).not.toContain("leak-");
    }
    expect(event.body.chain.eventIndex).not.toBe(999);
    expect(event.body).not.toHaveProperty("organizationId");
    expect(ticket.body).toMatchObject({ state: "valid", checkedIn: false, claimed: false, chain: { serial: 1 } });
    expect(ticket.body.chain.tokenId).toBe(tokenId(event.body.chain.eventIndex, 1));

    // Nor in the ledger's payloads.
    const rows = await testApp.app.get(DataSource).query<{ payload: string }[]>(`SELECT payload::text AS payload FROM chain_actions WHERE payload IS NOT NULL`);
    for (const row of rows) expect(row.payload).not.toContain("leak-");
  });
});

describe("GET /api/v1/chain and /health", () => {
  it("GET /api/v1/chain answers the registry's whereabouts", async () => {
    const answer = await api.get("/api/v1/chain");
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ chainId: null, registryAddress: null, confirmations: 1 });
  });

  it("GET /health needs no key and reports the database and redis up", async () => {
    const answer = await apiClient(testApp.baseUrl).get("/health");
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ status: "ok", info: { database: { status: "up" }, redis: { status: "up" } } });
  });
});
