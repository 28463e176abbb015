import { DataSource } from "typeorm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import type { ApiClient } from "../support/api-client";
import { eventBody, id, newEventData, soldItem, UUID } from "../support/fixtures";
import { startTestApp, type TestApp } from "../support/test-app";

/**
 * Any input: a NUL or a lone UTF-16 surrogate in any string is an item's invalid_field naming the
 * field (never a 500, never the whole request), in path and query parameters a 400; callbackUrls that
 * can never be delivered to are refused when they are accepted.
 */
let testApp: TestApp;
let api: ApiClient;
let ticketeerId: string;
let eventId: string;

const NUL = "a\u0000b";
const LONE = "a\ud800b";

/** Raw JSON with the escapes as the client sends them (JSON.stringify would write a lone surrogate as \ud800 too). */
const rawPost = (path: string, json: string) => api.request("POST", path, json);

beforeAll(async () => {
  testApp = await startTestApp({ CALLBACK_ALLOW_HOSTS: "10.1.2.3,localhost" });
  ({ ticketeerId, api } = await testApp.client());
  eventId = id("ev-input");
  expect((await api.post("/api/v1/events", eventBody(eventId, ticketeerId))).status).toBe(200);
});

afterAll(async () => {
  await testApp?.close();
});

describe("NUL, lone surrogates and paths that do not decode", () => {
  it.each([
    ["NUL", NUL],
    ["a lone surrogate", LONE],
    ["a lone low surrogate", "\udc00x"],
  ])("%s in a /sold item is that item's invalid_field; the next item is accepted", async (_, bad) => {
    const good = id("t-good");
    for (const [field, item] of [
      ["ticketId", soldItem(eventId, bad)],
      ["eventId", soldItem(bad, id("t"))],
      ["price", soldItem(eventId, id("t"), { price: bad })],
      ["uri", soldItem(eventId, id("t"), { uri: `ipfs://${bad}` })],
    ] as const) {
      const answer = await api.post("/api/v1/sold", [item, soldItem(eventId, `${good}-${field}`)]);
      expect(answer.status).toBe(200);
      expect(answer.body[0]).toMatchObject({ status: "error", error: { code: "invalid_field", field } });
      expect(answer.body[1]).toMatchObject({ status: "success", txPromise: expect.stringMatching(UUID) });
    }
  });

  it("a lone surrogate sent as a JSON escape is refused, a proper pair (𝄞) is accepted", async () => {
    const lone = await rawPost("/api/v1/sold", `[{"eventId":"${eventId}","ticketId":"t-\\ud834","price":"1"}]`);
    expect(lone.body[0]).toMatchObject({ status: "error", error: { code: "invalid_field", field: "ticketId" } });
    const pair = await rawPost("/api/v1/sold", `[{"eventId":"${eventId}","ticketId":"t-\\ud834\\udd1e-${Date.now()}","price":"1"}]`);
    expect(pair.body[0].status).toBe("success");
  });

  it("POST /api/v1/events with NUL in eventName answers 400 invalid_field naming it, never 500", async () => {
    const answer = await api.post("/api/v1/events", eventBody(id("ev"), ticketeerId, { eventName: NUL }));
    expect(answer.status).toBe(400);
    expect(answer.body.error).toMatchObject({ code: "invalid_field", field: "eventName" });
    const lone = await api.post("/api/v1/events", eventBody(id("ev"), ticketeerId, { ticketeerName: LONE }));
    expect(lone.status).toBe(400);
    expect(lone.body.error).toMatchObject({ code: "invalid_field", field: "ticketeerName" });
  });

  it("in /stream the bad actions are refused item by item and the others still succeed", async () => {
    const ev = id("ev-stream");
    const answer = await api.post("/stream", [
      { action: "newEvent", data: newEventData(ev) },
      { action: "newEvent", data: newEventData(id("ev"), { eventName: NUL }) },
      { action: "soldTicket", data: soldItem(ev, LONE) },
      { action: "updateEvent", data: { eventId: ev, shopUrl: `https://shop.example.com/${NUL}` } },
      { action: "updateTicket", data: { ticketId: "t", uri: `ipfs://${LONE}` } },
      { action: "soldTicket", data: soldItem(ev, id("t-ok")) },
    ]);
    expect(answer.status).toBe(200);
    expect(answer.body.data.map((entry: { status: string; error?: { field?: string } }) => [entry.status, entry.error?.field])).toEqual([
      ["success", undefined],
      ["error", "eventName"],
      ["error", "ticketId"],
      ["error", "shopUrl"],
      ["error", "uri"],
      ["success", undefined],
    ]);
  });

  it("path and query parameters with them answer 400 invalid_field (GET /api/v1/tickets/a%00b was a 500)", async () => {
    for (const path of ["/api/v1/tickets/a%00b", "/api/v1/events/a%00b", "/api/v1/actions/a%00b"]) {
      const answer = await api.get(path);
      expect(answer.status, path).toBe(400);
      expect(answer.body.error, path).toMatchObject({ code: "invalid_field" });
    }
    const query = await api.get("/api/v1/callbacks?eventId=a%00b");
    expect(query.status).toBe(400);
    expect(query.body.error).toMatchObject({ code: "invalid_field", field: "eventId" });
  });

  it("a path parameter that does not decode (a malformed %-escape, bytes that are not UTF-8) answers 400 invalid_field naming it", async () => {
    for (const [path, field] of [
      ["/api/v1/tickets/a%ffb", "ticketId"],
      ["/api/v1/events/%ff", "eventId"],
      ["/api/v1/actions/%E0%A4%A", "promise"],
      ["/api/v1/callbacks/%C0%AF", "callbackId"],
      // A lone surrogate cannot be percent-encoded as UTF-8: such a path is not UTF-8.
      ["/api/v1/tickets/a%ED%A0%80b", "ticketId"],
    ]) {
      const answer = await api.get(path);
      expect(answer.status, path).toBe(400);
      expect(answer.body, path).toEqual({
        status: "error",
        error: { code: "invalid_field", field, message: `${field} is not UTF-8 text percent-encoded (a malformed %-escape, or bytes that are not UTF-8)` },
      });
    }
    const redeliver = await api.post("/api/v1/callbacks/%ff/redeliver", {});
    expect(redeliver.body.error).toMatchObject({ code: "invalid_field", field: "callbackId" });
  });
});

describe("255 characters", () => {
  it("are counted in code points: 255 × 𝄞 (510 UTF-16 units, 1020 UTF-8 bytes) is taken, 256 refused", async () => {
    const taken = await api.post("/api/v1/events", eventBody(id("ev"), ticketeerId, { eventName: "𝄞".repeat(255) }));
    expect(taken.status).toBe(200);
    const refused = await api.post("/api/v1/events", eventBody(id("ev"), ticketeerId, { eventName: "𝄞".repeat(256) }));
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatchObject({ code: "invalid_field", field: "eventName" });
    const [row] = await testApp.app
      .get(DataSource)
      .query<{ payload: string }[]>(`SELECT payload::text AS payload FROM chain_actions WHERE id = $1`, [taken.body.txPromise]);
    expect(Buffer.byteLength((JSON.parse(row.payload) as { details: { name: string } }).details.name)).toBe(1020);
  });
});

describe("callbackUrl at acceptance", () => {
  it.each([
    ["https://127.0.0.1/cb", "loopback"],
    ["https://10.0.0.7/cb", "private"],
    ["https://192.168.1.1:8443/cb", "private"],
    ["https://169.254.169.254/latest/meta-data", "link-local"],
    ["https://100.64.0.1/cb", "carrier-grade NAT"],
    ["https://224.0.0.1/cb", "multicast"],
    ["https://0.0.0.0/cb", "unspecified"],
    ["https://240.0.0.1/cb", "reserved"],
    ["https://[::1]/cb", "loopback"],
    ["https://[fd00:ec2::254]/cb", "unique local"],
    ["https://[::ffff:10.0.0.1]/cb", "IPv4-mapped"],
    ["https://[::127.0.0.1]/cb", "IPv4-compatible"],
    ["https://[64:ff9b::a00:1]/cb", "NAT64"],
    ["https://[fe80::1]/cb", "link-local"],
    ["https://[fe80::1%25lo]/cb", "zone id"],
    ["https://user:pass@integrator.example.com/cb", "user information"],
    ["https://user@integrator.example.com/cb", "user information"],
    ["https://metadata.localhost/cb", "localhost"],
  ])("%s is refused (%s) on /events, newEvent and updateEvent", async (callbackUrl, why) => {
    const created = await api.post("/api/v1/events", eventBody(id("ev"), ticketeerId, { callbackUrl }));
    expect(created.status).toBe(400);
    expect(created.body.error).toEqual({ code: "invalid_field", field: "callbackUrl", message: expect.stringContaining(why) });
    const streamed = await api.post("/stream", [
      { action: "newEvent", data: newEventData(id("ev"), { callbackUrl }) },
      { action: "updateEvent", data: { eventId, callbackUrl } },
      { action: "updateEvent", data: { eventId, eventName: "still accepted" } },
    ]);
    expect(streamed.body.data.map((entry: { status: string; error?: { field?: string } }) => [entry.status, entry.error?.field])).toEqual([
      ["error", "callbackUrl"],
      ["error", "callbackUrl"],
      ["success", undefined],
    ]);
  });

  it.each([
    "https://integrator.example.com/callbacks",
    "https://8.8.8.8/cb",
    "https://[2606:4700:4700::1111]/cb",
    // CALLBACK_ALLOW_HOSTS of this app: 10.1.2.3 and localhost may be private, as delivery lets them.
    "https://10.1.2.3/cb",
    "https://localhost:8443/cb",
  ])("%s is accepted", async (callbackUrl) => {
    const answer = await api.post("/api/v1/events", eventBody(id("ev"), ticketeerId, { callbackUrl }));
    expect(answer.status).toBe(200);
  });
});
