import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { OrganizationsService } from "../../src/auth/organizations.service";
import { apiClient } from "../support/api-client";
import { eventBody, historyOf, id, newEventData, soldItem, UUID, WALLET } from "../support/fixtures";
import { startTestApp, type TestApp } from "../support/test-app";

/**
 * Authentication (exactly 403 {"message":"Forbidden"} for a missing, wrong or revoked key) and
 * tenant isolation: another organization's events, tickets and promises do not exist for you.
 */
let testApp: TestApp;
let orgA: { ticketeerId: string; key: string; prefix: string };
let orgB: { ticketeerId: string; key: string; prefix: string };
let apiA: ReturnType<typeof apiClient>;
let apiB: ReturnType<typeof apiClient>;

// A's data, created once.
const eventA = id("ev-a");
const ticketA = id("t-a");
let soldPromiseA: string;
let eventPromiseA: string;

beforeAll(async () => {
  testApp = await startTestApp();
  orgA = await testApp.organization();
  orgB = await testApp.organization();
  apiA = apiClient(testApp.baseUrl, orgA.key);
  apiB = apiClient(testApp.baseUrl, orgB.key);
  const created = await apiA.post("/api/v1/events", eventBody(eventA, orgA.ticketeerId));
  expect(created.status).toBe(200);
  eventPromiseA = created.body.txPromise;
  const sold = await apiA.post("/api/v1/sold", [soldItem(eventA, ticketA)]);
  expect(sold.body[0].status).toBe("success");
  soldPromiseA = sold.body[0].txPromise;
});

afterAll(async () => {
  await testApp?.close();
});

describe("403 Forbidden", () => {
  const requests = (client: ReturnType<typeof apiClient>) => [
    () => client.post("/api/v1/events", eventBody(id("ev-x"), orgA.ticketeerId)),
    () => client.post("/api/v1/sold", [soldItem(eventA, id("t-x"))]),
    () => client.post("/api/v1/resold", [{ ticketId: ticketA, price: "1" }]),
    () => client.post("/api/v1/scanned", [{ ticketId: ticketA }]),
    () => client.post("/api/v1/checkedin", [{ ticketId: ticketA }]),
    () => client.post("/api/v1/invalidated", [{ ticketId: ticketA }]),
    () => client.post("/stream", [{ action: "scannedTicket", data: { ticketId: ticketA } }]),
    () => client.post("/api/v1/stream", [{ action: "scannedTicket", data: { ticketId: ticketA } }]),
    () => client.get(`/api/v1/events/${eventA}`),
    () => client.get(`/api/v1/tickets/${ticketA}`),
    () => client.get(`/api/v1/actions/${soldPromiseA}`),
    () => client.get("/api/v1/chain"),
  ];

  async function expectForbidden(client: ReturnType<typeof apiClient>): Promise<void> {
    for (const request of requests(client)) {
      const answer = await request();
      expect(answer.status).toBe(403);
      expect(answer.body).toStrictEqual({ message: "Forbidden" });
    }
    // Nothing was applied: the ticket is still only sold.
    const ticket = await apiA.get(`/api/v1/tickets/${ticketA}`);
    expect(ticket.body.state).toBe("valid");
    expect(historyOf(ticket.body).map(([action]) => action)).toEqual(["sold"]);
  }

  it("a missing key", async () => {
    await expectForbidden(apiClient(testApp.baseUrl));
  });

  it("a wrong key: unknown, empty, the right prefix with a wrong secret, and far too long", async () => {
    await expectForbidden(apiClient(testApp.baseUrl, "trk_notakey_" + "x".repeat(43)));
    await expectForbidden(apiClient(testApp.baseUrl, orgA.key.slice(0, -1) + (orgA.key.endsWith("A") ? "B" : "A")));
    await expectForbidden(apiClient(testApp.baseUrl, orgA.prefix));
    await expectForbidden(apiClient(testApp.baseUrl, orgA.key + "x".repeat(300)));
    const empty = await apiClient(testApp.baseUrl).request("GET", "/api/v1/chain", undefined, { "x-api-key": "" });
    expect(empty.status).toBe(403);
    expect(empty.body).toStrictEqual({ message: "Forbidden" });
  });

  it("a revoked key, while the organization's other key still works", async () => {
    const organizations = testApp.app.get(OrganizationsService);
    const spare = await organizations.issueKey(orgA.ticketeerId, "spare");
    const spareApi = apiClient(testApp.baseUrl, spare.key);
    expect((await spareApi.get(`/api/v1/events/${eventA}`)).status).toBe(200);
    await organizations.revokeKey(spare.prefix);
    await expectForbidden(spareApi);
    expect((await apiA.get(`/api/v1/events/${eventA}`)).status).toBe(200);
  });

  it("a missing or wrong key comes first: 403 also for a body that is not JSON, not an array or over the size cap", async () => {
    for (const client of [apiClient(testApp.baseUrl), apiClient(testApp.baseUrl, "trk_notakey_" + "x".repeat(43))]) {
      for (const [path, body] of [
        ["/api/v1/sold", "{not json"],
        ["/api/v1/sold", "{}"],
        ["/api/v1/events", "{not json"],
        ["/stream", "[1,"],
        ["/api/v1/scanned", `[${"1,".repeat(testApp.config.limits.ticketBodyBytes)}1]`],
        ["/stream", `[${"1,".repeat(testApp.config.limits.streamBodyBytes)}1]`],
      ]) {
        const answer = await client.request("POST", path, body);
        expect(answer.status, path).toBe(403);
        expect(answer.body).toStrictEqual({ message: "Forbidden" });
      }
    }
  });

  it("GET /health needs no key", async () => {
    const answer = await apiClient(testApp.baseUrl).get("/health");
    expect(answer.status).toBe(200);
    expect(answer.body.status).toBe("ok");
    const withBadKey = await apiClient(testApp.baseUrl, "wrong").get("/health");
    expect(withBadKey.status).toBe(200);
  });
});

describe("tenant isolation", () => {
  it("B cannot see A's event, ticket or promises", async () => {
    const event = await apiB.get(`/api/v1/events/${eventA}`);
    expect(event.status).toBe(404);
    expect(event.body).toEqual({ status: "error", error: { code: "event_not_found", message: expect.any(String), field: "eventId" } });
    const ticket = await apiB.get(`/api/v1/tickets/${ticketA}`);
    expect(ticket.status).toBe(404);
    expect(ticket.body).toEqual({ status: "error", error: { code: "ticket_not_found", message: expect.any(String), field: "ticketId" } });
    for (const promise of [eventPromiseA, soldPromiseA]) {
      const action = await apiB.get(`/api/v1/actions/${promise}`);
      expect(action.status).toBe(404);
      expect(action.body).toEqual({ status: "error", error: { code: "action_not_found", message: expect.any(String) } });
      expect((await apiA.get(`/api/v1/actions/${promise}`)).status).toBe(200);
    }
  });

  it("B cannot act on A's event or ticket; A's state is untouched", async () => {
    const sold = await apiB.post("/api/v1/sold", [soldItem(eventA, id("t-b"))]);
    expect(sold.body[0]).toMatchObject({ status: "error", error: { code: "event_not_found", field: "eventId" } });
    for (const [path, item] of [
      ["resold", { ticketId: ticketA, price: "99.00" }],
      ["scanned", { ticketId: ticketA }],
      ["checkedin", { ticketId: ticketA }],
      ["invalidated", { ticketId: ticketA }],
    ] as const) {
      const answer = await apiB.post(`/api/v1/${path}`, [item]);
      expect(answer.body, path).toEqual([
        { ticketId: ticketA, status: "error", error: { code: "ticket_not_found", message: expect.any(String), field: "ticketId" } },
      ]);
    }
    const stream = await apiB.post("/stream", [
      { action: "updateEvent", data: { eventId: eventA, eventName: "Hijacked" } },
      { action: "soldTicket", data: { eventId: eventA, ticketId: id("t-b"), price: "1" } },
      { action: "updateTicket", data: { ticketId: ticketA, uri: "ipfs://hijacked" } },
      { action: "claimedTicket", data: { ticketId: ticketA, to: WALLET } },
    ]);
    expect(stream.body.data.map((entry: { error: { code: string } }) => entry.error.code)).toEqual([
      "event_not_found",
      "event_not_found",
      "ticket_not_found",
      "ticket_not_found",
    ]);

    const event = await apiA.get(`/api/v1/events/${eventA}`);
    expect(event.body).toMatchObject({ eventName: "Concert", ticketsSold: 1 });
    expect(event.body.actions).toHaveLength(1);
    const ticket = await apiA.get(`/api/v1/tickets/${ticketA}`);
    expect(ticket.body).toMatchObject({ state: "valid", price: "10.00", uri: "", resales: 0 });
    expect(historyOf(ticket.body).map(([action]) => action)).toEqual(["sold"]);
  });

  it("B can use the same eventId and ticketId as A, independently, and vice versa", async () => {
    const created = await apiB.post("/api/v1/events", eventBody(eventA, orgB.ticketeerId, { eventName: "B's concert" }));
    expect(created.status).toBe(200);
    expect(created.body).toEqual({ txPromise: expect.stringMatching(UUID), eventId: eventA, status: "success" });
    const sold = await apiB.post("/api/v1/sold", [soldItem(eventA, ticketA, { price: "77.00" })]);
    expect(sold.body).toEqual([{ txPromise: expect.stringMatching(UUID), ticketId: ticketA, status: "success" }]);
    expect((await apiB.post("/api/v1/scanned", [{ ticketId: ticketA }])).body[0].status).toBe("success");

    const eventOfB = await apiB.get(`/api/v1/events/${eventA}`);
    const eventOfA = await apiA.get(`/api/v1/events/${eventA}`);
    expect(eventOfB.body).toMatchObject({ eventName: "B's concert", ticketeerId: orgB.ticketeerId, ticketsSold: 1 });
    expect(eventOfA.body).toMatchObject({ eventName: "Concert", ticketeerId: orgA.ticketeerId, ticketsSold: 1 });
    expect(eventOfB.body.chain.eventIndex).not.toBe(eventOfA.body.chain.eventIndex);
    expect(eventOfB.body.chain.eventKey).not.toBe(eventOfA.body.chain.eventKey);

    const ticketOfB = await apiB.get(`/api/v1/tickets/${ticketA}`);
    const ticketOfA = await apiA.get(`/api/v1/tickets/${ticketA}`);
    expect(ticketOfB.body).toMatchObject({ state: "checked_in", price: "77.00" });
    expect(ticketOfA.body).toMatchObject({ state: "valid", price: "10.00" });
    expect(ticketOfB.body.chain.tokenId).not.toBe(ticketOfA.body.chain.tokenId);
    expect(historyOf(ticketOfA.body).map(([action]) => action)).toEqual(["sold"]);

    // B's promises are B's alone.
    const promiseB = sold.body[0].txPromise;
    expect((await apiA.get(`/api/v1/actions/${promiseB}`)).status).toBe(404);
    expect((await apiB.get(`/api/v1/actions/${promiseB}`)).body).toMatchObject({ eventId: eventA, ticketId: ticketA, action: "sold" });

    // A new id of B does not exist for A, and A may then create it too.
    const onlyB = id("ev-only-b");
    expect((await apiB.post("/stream", [{ action: "newEvent", data: newEventData(onlyB) }])).body.data[0].status).toBe("success");
    expect((await apiA.get(`/api/v1/events/${onlyB}`)).status).toBe(404);
    expect((await apiA.post("/api/v1/sold", [soldItem(onlyB, id("t"))])).body[0].error.code).toBe("event_not_found");
    expect((await apiA.post("/api/v1/events", eventBody(onlyB, orgA.ticketeerId))).status).toBe(200);
  });
});
