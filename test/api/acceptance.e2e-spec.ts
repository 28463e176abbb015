import { afterAll, beforeAll, describe, expect, it } from "vitest";

import type { ApiClient } from "../support/api-client";
import { startTestApp, type TestApp } from "../support/test-app";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

let testApp: TestApp;
let api: ApiClient;
let ticketeerId: string;

const newEvent = (eventId: string, extra: Record<string, unknown> = {}) => ({
  eventId,
  ticketeerId,
  eventName: "Concert",
  currency: "EUR",
  callbackUrl: "https://integrator.example.com/callbacks",
  ...extra,
});

beforeAll(async () => {
  testApp = await startTestApp();
  ({ ticketeerId, api } = await testApp.client());
});

afterAll(async () => {
  await testApp?.close();
});

describe("a mixed /stream in order", () => {
  it("registers an event, sells, scans and claims its ticket in one request", async () => {
    const answer = await api.post("/stream", [
      { action: "newEvent", data: { ...newEvent("stream-event"), ticketeerId: undefined } },
      { action: "soldTicket", data: { eventId: "stream-event", ticketId: "stream-t1", price: "10.00" } },
      { action: "scannedTicket", data: { ticketId: "stream-t1" } },
      { action: "claimedTicket", data: { ticketId: "stream-t1", to: "0x52908400098527886E0F7030069857D2E4169EE7" } },
      { action: "updateTicket", data: { ticketId: "stream-t1", uri: "ipfs://meta/1.json" } },
    ]);
    expect(answer.status).toBe(200);
    expect(answer.body.status).toBe("success");
    expect(answer.body.data.map((entry: { status: string }) => entry.status)).toEqual(["success", "success", "success", "success", "success"]);
    expect(answer.body.data[0]).toEqual({ status: "success", action: "newEvent", eventId: "stream-event", actionPromise: expect.stringMatching(UUID) });
    expect(answer.body.data[1]).toEqual({
      status: "success",
      action: "soldTicket",
      eventId: "stream-event",
      ticketId: "stream-t1",
      actionPromise: expect.stringMatching(UUID),
    });
    expect(Object.keys(answer.body.data[2]).sort()).toEqual(["action", "actionPromise", "status", "ticketId"]);

    const ticket = await api.get("/api/v1/tickets/stream-t1");
    expect(ticket.body).toMatchObject({
      state: "claimed",
      checkedIn: true,
      claimed: true,
      claimedTo: "0x52908400098527886E0F7030069857D2E4169EE7",
      uri: "ipfs://meta/1.json",
    });
    expect(ticket.body.actions.map((action: { action: string; status: string }) => [action.action, action.status])).toEqual([
      ["sold", "waiting_broadcast"],
      ["scanned", "waiting_broadcast"],
      ["claimed", "waiting_broadcast"],
      ["updateTicket", "waiting_broadcast"],
    ]);
  });
});
