import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { type Exchange, OpenApiValidator, validateServerTraffic } from "../support/openapi-validator";

/** The validator the end-to-end suite runs every exchange through must be able to fail. */
let validator: OpenApiValidator;

beforeAll(async () => {
  validator = await OpenApiValidator.load();
});

const ACTION = {
  actionPromise: "5f0c1d8e-7c5a-4b9e-9a3e-2b1f0e9d8c7a",
  action: "newEvent",
  requestedAs: "events",
  status: "waiting_broadcast",
  txHash: null,
  blockNumber: null,
  blockHash: null,
  error: null,
  transfer: null,
  acceptedAt: "2026-11-23T10:00:00.000Z",
  updatedAt: "2026-11-23T10:00:00.000Z",
};

const EVENT = {
  eventId: "ev-1",
  eventName: "Concert",
  ticketeerId: "org-1",
  ticketeerName: "",
  currency: "EUR",
  shopUrl: "",
  imageUrl: "",
  description: "",
  ticketImageUrl: "",
  latitude: 0,
  longitude: 0,
  startTime: 1750000000,
  endTime: "18446744073709551615",
  callbackUrl: "https://integrator.example.com/callbacks",
  callbackFailingSince: null,
  callbackDisabledAt: null,
  ticketsSold: 0,
  cancelled: false,
  cancelledAt: null,
  chain: { eventIndex: 1, eventKey: "0x00", registered: false, cancelled: false },
  actions: [ACTION],
};

function answer(method: string, url: string, status: number, body: unknown, requestBody?: unknown): Exchange {
  return {
    method,
    url,
    headers: { "content-type": "application/json" },
    requestBody,
    status,
    contentType: "application/json; charset=utf-8",
    responseBody: Buffer.from(JSON.stringify(body)),
  };
}

describe("OpenApiValidator", () => {
  it("takes an answer that matches the document: numbers and their string form beyond 2^53, error: null", () => {
    expect(validator.check(answer("GET", "/api/v1/events/ev-1", 200, EVENT))).toEqual([]);
    expect(validator.check(answer("GET", "/api/v1/actions/x", 200, { ...ACTION, eventId: "ev-1", ticketId: null }))).toEqual([]);
  });

  it("names method, path, status and the schema error of an answer with a wrong type", () => {
    const violations = validator.check(answer("GET", "/api/v1/events/ev-1", 200, { ...EVENT, startTime: { seconds: 1 } }));
    expect(violations).toHaveLength(1);
    expect(violations[0]).toContain("GET /api/v1/events/ev-1 -> 200 (getEvent)");
    expect(violations[0]).toContain("/startTime");
    // A small number as a string is not what the service sends (it sends numbers while exact).
    expect(validator.check(answer("GET", "/api/v1/events/ev-1", 200, { ...EVENT, ticketsSold: "12" }))[0]).toContain("/ticketsSold");
    expect(validator.check(answer("GET", "/api/v1/actions/x", 200, { ...ACTION, error: "boom", eventId: "e", ticketId: null }))[0]).toContain("/error");
  });

  it("refuses an undocumented status and an undocumented content type", () => {
    expect(validator.check(answer("GET", "/api/v1/chain", 418, { status: "error" }))[0]).toContain("status 418 is not documented");
    const html = { ...answer("GET", "/api/v1/chain", 200, {}), contentType: "text/html" };
    expect(validator.check(html)[0]).toContain("content type text/html is not documented");
  });

  it("checks the request of a 2xx answer, but not the items the answer refused one by one", () => {
    const accepted = { txPromise: ACTION.actionPromise, eventId: "ev-1", status: "success" };
    const violations = validator.check(answer("POST", "/api/v1/events", 200, accepted, { eventId: "ev-1", ticketeerId: "org-1" }));
    expect(violations[0]).toContain("POST /api/v1/events -> 200 (registerEvent): the request does not match");
    expect(violations[0]).toContain("currency");

    const sold = { eventId: "ev-1", ticketId: "t-1", price: "10" };
    const results = [
      { txPromise: ACTION.actionPromise, ticketId: "t-1", status: "success" },
      { ticketId: null, status: "error", error: { code: "invalid_item", message: "Each item must be a JSON object." } },
    ];
    expect(validator.check(answer("POST", "/api/v1/sold", 200, results, [sold, 42]))).toEqual([]);
    expect(validator.check(answer("POST", "/api/v1/sold", 200, [results[0], results[0]], [sold, 42]))[0]).toContain("/requestBody/1");
  });

  it("checks a path parameter as the service reads it: decoded once, a slash or a percent sign in it included", () => {
    for (const eventId of ["a%b", "a/b", "%", "%2F", "𝄞 ?#"]) {
      const url = `/api/v1/events/${encodeURIComponent(eventId)}`;
      expect(validator.check(answer("GET", url, 200, { ...EVENT, eventId })), eventId).toEqual([]);
      expect(validator.check(answer("GET", url, 200, { ...EVENT, eventId, ticketsSold: "12" }))[0], eventId).toContain("(getEvent)");
    }
  });

  it("checks the documented query parameters of a 2xx answer and leaves the others alone", () => {
    const get = (url: string) => validator.check(answer("GET", url, 200, []));
    expect(get("/api/v1/callbacks?limit=10&status=failed")).toEqual([]);
    expect(get("/api/v1/callbacks?limit=10&whatever=1")).toEqual([]);
    expect(get("/api/v1/callbacks?limit=0")[0]).toContain("limit");
    expect(get("/api/v1/callbacks?status=lost")[0]).toContain("status");
  });

  it("matches each /stream entry to exactly one member of the union, by its action", () => {
    const result = { status: "success", action: "soldTicket", eventId: "ev-1", ticketId: "t-1", actionPromise: ACTION.actionPromise };
    const entry = { action: "soldTicket", data: { eventId: "ev-1", ticketId: "t-1", price: "10" } };
    expect(validator.check(answer("POST", "/stream", 200, { status: "success", data: [result] }, [entry]))).toEqual([]);
    const mislabelled = { action: "newEvent", data: entry.data };
    expect(validator.check(answer("POST", "/stream", 200, { status: "success", data: [result] }, [mislabelled]))[0]).toContain("/requestBody/0");
  });

  describe("in front of a server", () => {
    let server: Server;
    let traffic: ReturnType<typeof validateServerTraffic>;

    beforeAll(async () => {
      server = createServer((_request, response) => {
        response.writeHead(200, { "content-type": "application/json" });
        response.end(JSON.stringify({ chainId: "not a number", registryAddress: null, confirmations: 1 }));
      });
      traffic = validateServerTraffic(server, validator);
      await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    });

    afterAll(async () => {
      await new Promise((resolve) => server.close(resolve));
    });

    it("collects the violations of what the server answers", async () => {
      const { port } = server.address() as AddressInfo;
      expect((await fetch(`http://127.0.0.1:${port}/api/v1/chain`)).status).toBe(200);
      await traffic.settled();
      expect(traffic.violations).toHaveLength(1);
      expect(traffic.violations[0]).toMatch(/^GET \/api\/v1\/chain -> 200 \(getChainInfo\): the answer does not match the document: \/chainId/);
    });
  });
});
