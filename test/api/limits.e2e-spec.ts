import { gzipSync } from "node:zlib";

import { DataSource } from "typeorm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { apiClient } from "../support/api-client";
import { eventBody, id, keysOf, soldItem, UUID } from "../support/fixtures";
import { startTestApp, type TestApp } from "../support/test-app";

/**
 * Whole-request limits: item counts, body shape, JSON, and the body size caps. A refused request
 * stores nothing at all; requests at the limits are accepted.
 */
let testApp: TestApp;
let api: ReturnType<typeof apiClient>;
let ticketeerId: string;
let eventId: string;

const TICKET_PATHS = ["sold", "resold", "scanned", "checkedin", "invalidated"];
const MAX_PRICE = "79228162514264337593543.950335";
const UINT64_MAX = "18446744073709551615";

const wholeRequestError = (code: string) => ({ status: "error", error: { code, message: expect.any(String) } });

async function ledgerRows(): Promise<number> {
  const [row] = await testApp.app.get(DataSource).query<
    {
      n: string;
    }[]
  >("SELECT (SELECT count(*) FROM chain_actions) + (SELECT count(*) FROM events) + (SELECT count(*) FROM tickets) AS n");
  return Number(row.n);
}

/** Runs `request` and checks that it answered `status` with the error `code` and stored nothing. */
async function refusedWhole(request: () => Promise<{ status: number; body: unknown }>, status: number, code: string): Promise<void> {
  const before = await ledgerRows();
  const answer = await request();
  expect(answer.status).toBe(status);
  expect(answer.body).toEqual(wholeRequestError(code));
  expect(keysOf(answer.body as object)).toEqual(["error", "status"]);
  expect(await ledgerRows()).toBe(before);
}

/** A string of exactly `length` ASCII characters starting with `head`. */
const fill = (head: string, length: number, pad = "x") => head + pad.repeat(length - head.length);

beforeAll(async () => {
  testApp = await startTestApp();
  ({ ticketeerId, api } = await testApp.client());
  eventId = id("ev-limits");
  expect((await api.post("/api/v1/events", eventBody(eventId, ticketeerId))).status).toBe(200);
});

afterAll(async () => {
  await testApp?.close();
});

describe("items per request", () => {
  it("100 maximal sold items are accepted", async () => {
    const longEvent = fill("ev-", 255);
    expect((await api.post("/api/v1/events", eventBody(longEvent, ticketeerId))).status).toBe(200);
    const items = Array.from({ length: 100 }, (_, i) => ({
      eventId: longEvent,
      ticketId: fill(`t-max-${String(i).padStart(3, "0")}-`, 255),
      orderTime: UINT64_MAX,
      price: MAX_PRICE,
      uri: fill(`ipfs://meta/${i}/`, 255),
    }));
    const answer = await api.post("/api/v1/sold", items);
    expect(answer.status).toBe(200);
    expect(answer.body).toHaveLength(100);
    expect(answer.body).toEqual(items.map((item) => ({ txPromise: expect.stringMatching(UUID), ticketId: item.ticketId, status: "success" })));
    const ticket = await api.get(`/api/v1/tickets/${items[99].ticketId}`);
    expect(ticket.body).toMatchObject({ price: MAX_PRICE, orderTime: UINT64_MAX, uri: items[99].uri, chain: { serial: 100 } });
  });

  it.each(TICKET_PATHS)("101 items on /api/v1/%s answer 400 too_many_items and nothing is stored", async (path) => {
    const items = Array.from({ length: 101 }, (_, i) => soldItem(eventId, id(`t-101-${i}`)));
    await refusedWhole(() => api.post(`/api/v1/${path}`, items), 400, "too_many_items");
    expect((await api.get(`/api/v1/tickets/${items[0].ticketId}`)).status).toBe(404);
  });

  it("5001 actions on /stream answer 400 too_many_items and nothing is stored", async () => {
    const newEvent = id("ev-5001");
    const actions = [
      { action: "newEvent", data: { eventId: newEvent, currency: "EUR", callbackUrl: "https://cb.example.com" } },
      ...Array.from({ length: 5000 }, (_, i) => ({ action: "soldTicket", data: { eventId: newEvent, ticketId: `t5001-${i}`, price: "1" } })),
    ];
    await refusedWhole(() => api.post("/stream", actions), 400, "too_many_items");
    await refusedWhole(() => api.post("/api/v1/stream", actions), 400, "too_many_items");
    expect((await api.get(`/api/v1/events/${newEvent}`)).status).toBe(404);
  });

  it("5000 maximal newEvent actions (every string field at 255 characters) are accepted, not 413", async () => {
    // An organization whose ticketeerId is itself 255 characters, so that newEvent may carry it.
    const maximal = await testApp.organization(fill("org-max-", 255));
    const maxApi = apiClient(testApp.baseUrl, maximal.key);
    const url = (kind: string, i: number) => fill(`https://${kind}.example.com/${i}/`, 255, "a");
    const actions = Array.from({ length: 5000 }, (_, i) => ({
      action: "newEvent",
      data: {
        eventId: fill(`ev-max-${String(i).padStart(4, "0")}-`, 255),
        eventName: fill(`Event ${i} `, 255, "n"),
        ticketeerId: maximal.ticketeerId,
        ticketeerName: fill("Ticketeer ", 255, "t"),
        currency: "EUR",
        shopUrl: url("shop", i),
        imageUrl: url("img", i),
        latitude: -89.12345678901234,
        longitude: -179.12345678901235,
        startTime: "18446744073709551614",
        endTime: UINT64_MAX,
        callbackUrl: url("callback", i),
      },
    }));
    for (const value of Object.values(actions[0].data))
      if (typeof value === "string" && value !== "EUR" && !/^\d+$/.test(value)) expect(value).toHaveLength(255);
    const bytes = Buffer.byteLength(JSON.stringify(actions));
    expect(bytes).toBeGreaterThan(9 * 1024 * 1024);
    expect(bytes).toBeLessThanOrEqual(testApp.config.limits.streamBodyBytes);

    const answer = await maxApi.post("/stream", actions);
    expect(answer.status).toBe(200);
    expect(answer.body.status).toBe("success");
    expect(answer.body.data).toHaveLength(5000);
    expect(answer.body.data.filter((entry: { status: string }) => entry.status !== "success")).toEqual([]);
    expect(answer.body.data[4999]).toEqual({
      status: "success",
      action: "newEvent",
      eventId: actions[4999].data.eventId,
      actionPromise: expect.stringMatching(UUID),
    });
    const view = await maxApi.get(`/api/v1/events/${actions[4999].data.eventId}`);
    expect(view.body).toMatchObject({
      eventName: actions[4999].data.eventName,
      shopUrl: actions[4999].data.shopUrl,
      endTime: UINT64_MAX,
      ticketeerId: maximal.ticketeerId,
    });
  }, 90_000);
});

describe("body shape", () => {
  it.each([...TICKET_PATHS.map((path) => `/api/v1/${path}`), "/stream", "/api/v1/stream"])(
    "a body that is not an array on %s answers 400 invalid_body",
    async (path) => {
      for (const body of ["{}", `{"ticketId":"t"}`, "42", `"text"`, "null", "true"]) {
        await refusedWhole(() => api.request("POST", path, body), 400, "invalid_body");
      }
    },
  );

  it("a body that is not JSON answers 400 invalid_json, on every write endpoint", async () => {
    for (const path of [...TICKET_PATHS.map((p) => `/api/v1/${p}`), "/stream", "/api/v1/stream", "/api/v1/events"]) {
      for (const body of ["{not json", `[{"ticketId": "t",}]`, "[", "'single'"]) {
        await refusedWhole(() => api.request("POST", path, body), 400, "invalid_json");
      }
    }
  });

  /** One scannedTicket action whose ignored field `pad` holds `value`: the whole body nests 2 levels more than `value`. */
  const streamWithPad = (value: string) => `[{"action":"scannedTicket","data":{"ticketId":"${id("t-nested")}"},"pad":${value}}]`;
  const nestedArrays = (levels: number) => "[".repeat(levels) + "]".repeat(levels);

  it("a body nested deeper than 32 levels answers 400 nesting_too_deep on every endpoint; 32 levels are taken", async () => {
    const limit = 32;
    const atLimit = await api.request("POST", "/stream", streamWithPad(nestedArrays(limit - 2)));
    expect(atLimit.status).toBe(200);
    expect(atLimit.body.data[0].error.code).toBe("ticket_not_found");
    for (const path of [...TICKET_PATHS.map((p) => `/api/v1/${p}`), "/stream", "/api/v1/stream"]) {
      await refusedWhole(() => api.request("POST", path, streamWithPad(nestedArrays(limit - 1))), 400, "nesting_too_deep");
    }
    // Counted on the bytes as decompressed.
    const gzipped = gzipSync(streamWithPad(nestedArrays(limit - 1)));
    await refusedWhole(() => api.request("POST", "/stream", gzipped, { "content-encoding": "gzip" }), 400, "nesting_too_deep");
    const objects = (levels: number): string => (levels === 0 ? "1" : `{"a":${objects(levels - 1)}}`);
    await refusedWhole(() => api.request("POST", "/api/v1/events", objects(limit + 1)), 400, "nesting_too_deep");
    await refusedWhole(() => api.request("POST", "/api/v1/callbacks/redeliver", objects(limit + 1)), 400, "nesting_too_deep");
    // Brackets inside strings are text, however many.
    const inString = await api.request("POST", "/stream", streamWithPad(JSON.stringify(`\\"${"[{".repeat(100)}`)));
    expect(inString.status).toBe(200);
  });

  it("/stream's largest body of nested arrays is refused before it is parsed: one that is not JSON at its end still answers nesting_too_deep", async () => {
    const cap = testApp.config.limits.streamBodyBytes;
    const levels = Math.floor((cap - streamWithPad("").length) / 2);
    const nested = streamWithPad(nestedArrays(levels));
    expect(nested.length).toBeGreaterThan(cap - 100);
    expect(nested.length).toBeLessThanOrEqual(cap);
    await refusedWhole(() => api.request("POST", "/stream", nested), 400, "nesting_too_deep");
    // JSON.parse would refuse this at its last byte; the depth is read first.
    await refusedWhole(() => api.request("POST", "/stream", `${nested.slice(0, -1)}x`), 400, "nesting_too_deep");
    const answer = await api.request("POST", "/stream", nested);
    expect(answer.body.error.message).toBe("The request body nests arrays and objects more than 32 levels deep.");
  });

  it("a JSON array sent as text/plain is not taken as JSON", async () => {
    await refusedWhole(
      () => api.request("POST", "/api/v1/sold", JSON.stringify([soldItem(eventId, id("t-text"))]), { "content-type": "text/plain" }),
      400,
      "invalid_body",
    );
  });
});

describe("body encoding", () => {
  const postBytes = (path: string, bytes: Uint8Array, headers: Record<string, string>) => api.request("POST", path, bytes, headers);
  const soldJson = (ticketId: string) => JSON.stringify([soldItem(eventId, ticketId)]);

  it("only UTF-8 is read: a body declared in another charset answers 415 invalid_body, even one that is valid JSON in it", async () => {
    const ticketId = id("t-utf16");
    for (const charset of ["utf-16le", "utf-16", "UTF-32", "iso-8859-1"]) {
      const bytes = Buffer.from(soldJson(ticketId), charset.startsWith("utf-16") ? "utf16le" : "latin1");
      const answer = await refusedBytes(() => postBytes("/api/v1/sold", bytes, { "content-type": `application/json; charset=${charset}` }), 415);
      expect(answer.error).toEqual({ code: "invalid_body", message: "The request body must be UTF-8 JSON: its Content-Type names another charset." });
    }
    expect((await api.get(`/api/v1/tickets/${ticketId}`)).status).toBe(404);
    for (const contentType of ["application/json; charset=utf-8", 'application/json; charset="UTF-8"', "application/json"]) {
      const answer = await postBytes("/api/v1/sold", Buffer.from(soldJson(id("t-utf8"))), { "content-type": contentType });
      expect(answer.status, contentType).toBe(200);
    }
  });

  it("a body that does not decompress as its Content-Encoding says answers 400 invalid_body in our words, not the library's", async () => {
    const json = Buffer.from(soldJson(id("t-gzip")));
    for (const [encoding, bytes] of [
      ["gzip", json],
      ["gzip", gzipSync(json).subarray(0, 20)],
      ["deflate", json],
      ["br", json],
    ] as const) {
      const answer = await refusedBytes(() => postBytes("/api/v1/sold", bytes, { "content-type": "application/json", "content-encoding": encoding }), 400);
      expect(answer.error, encoding).toEqual({ code: "invalid_body", message: "The request body does not decompress as its Content-Encoding says." });
    }
    const unknown = await refusedBytes(() => postBytes("/api/v1/sold", json, { "content-type": "application/json", "content-encoding": "compress" }), 415);
    expect(unknown.error).toEqual({
      code: "invalid_body",
      message: "The request body's Content-Encoding is not read: send it as is, or as gzip, deflate, br or zstd.",
    });
    const gzipped = await postBytes("/api/v1/sold", gzipSync(Buffer.from(soldJson(id("t-gzip-ok")))), {
      "content-type": "application/json",
      "content-encoding": "gzip",
    });
    expect(gzipped.status).toBe(200);
  });

  /** Runs `request`, checks its status and that nothing was stored, and returns its body. */
  async function refusedBytes(request: () => Promise<{ status: number; body: unknown }>, status: number): Promise<{ error: unknown }> {
    const before = await ledgerRows();
    const answer = await request();
    expect(answer.status).toBe(status);
    expect(keysOf(answer.body as object)).toEqual(["error", "status"]);
    expect(await ledgerRows()).toBe(before);
    return answer.body as { error: unknown };
  }
});

describe("body size caps", () => {
  /** A JSON array of one ticket item padded with an ignored field to exactly `bytes` bytes. */
  const paddedItems = (bytes: number, ticketId: string) => {
    const head = `[{"ticketId":"${ticketId}","pad":"`;
    const tail = `"}]`;
    return head + "p".repeat(bytes - head.length - tail.length) + tail;
  };

  it("a ticket endpoint takes a body of exactly ticketBodyBytes and answers 413 payload_too_large above it", async () => {
    const cap = testApp.config.limits.ticketBodyBytes;
    expect(cap).toBe(4 * 1024 * 1024);
    const ticketId = id("t-cap");
    expect((await api.post("/api/v1/sold", [soldItem(eventId, ticketId)])).body[0].status).toBe("success");

    const atCap = await api.request("POST", "/api/v1/scanned", paddedItems(cap, ticketId));
    expect(atCap.status).toBe(200);
    expect(atCap.body).toEqual([{ txPromise: expect.stringMatching(UUID), ticketId, status: "success" }]);

    for (const path of TICKET_PATHS) {
      await refusedWhole(() => api.request("POST", `/api/v1/${path}`, paddedItems(cap + 1, ticketId)), 413, "payload_too_large");
    }
    const eventOverCap = `{"eventId":"${id("ev-big")}","pad":"${"p".repeat(cap)}"}`;
    await refusedWhole(() => api.request("POST", "/api/v1/events", eventOverCap), 413, "payload_too_large");
  });

  it("/stream takes bodies above the ticket cap and answers 413 payload_too_large above streamBodyBytes", async () => {
    const cap = testApp.config.limits.streamBodyBytes;
    expect(cap).toBe(16 * 1024 * 1024);
    const ticketId = id("t-stream-cap");
    const pad = (bytes: number) => {
      const head = `[{"action":"scannedTicket","data":{"ticketId":"${ticketId}"},"pad":"`;
      const tail = `"}]`;
      return head + "p".repeat(bytes - head.length - tail.length) + tail;
    };
    const atCap = await api.request("POST", "/stream", pad(cap));
    expect(atCap.status).toBe(200);
    expect(atCap.body.data[0].error.code).toBe("ticket_not_found");
    for (const path of ["/stream", "/api/v1/stream"]) {
      await refusedWhole(() => api.request("POST", path, pad(cap + 1)), 413, "payload_too_large");
    }
  });
});
