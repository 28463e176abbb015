import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { OrganizationsService } from "../../src/auth/organizations.service";
import { apiClient, type ApiAnswer } from "../support/api-client";
import { eventBody, id, soldItem } from "../support/fixtures";
import { startTestApp, type TestApp } from "../support/test-app";

/** Requests per API key, counted in Redis: RateLimit-* headers, then 429 rate_limited with Retry-After. */
let testApp: TestApp;
let organization: { ticketeerId: string; key: string; prefix: string };

const LIMIT = 3;
const STATUS_LIMIT = 2;

const header = (answer: ApiAnswer, name: string) => answer.headers.get(name);

function expectRateHeaders(answer: ApiAnswer, remaining: number): void {
  expect(header(answer, "ratelimit-limit")).toBe(String(LIMIT));
  expect(header(answer, "ratelimit-remaining")).toBe(String(remaining));
  const reset = Number(header(answer, "ratelimit-reset"));
  expect(Number.isInteger(reset)).toBe(true);
  expect(reset).toBeGreaterThanOrEqual(0);
  expect(reset).toBeLessThanOrEqual(testApp.config.rateLimit.durationSeconds);
}

async function newKey(): Promise<ReturnType<typeof apiClient>> {
  const issued = await testApp.app.get(OrganizationsService).issueKey(organization.ticketeerId, "rate");
  return apiClient(testApp.baseUrl, issued.key);
}

beforeAll(async () => {
  testApp = await startTestApp({ RATE_LIMIT_REQUESTS: String(LIMIT), STATUS_RATE_LIMIT_REQUESTS: String(STATUS_LIMIT) });
  organization = await testApp.organization();
});

afterAll(async () => {
  await testApp?.close();
});

describe("rate limits per API key", () => {
  it("answers RateLimit-Limit/Remaining/Reset, then 429 rate_limited with Retry-After", async () => {
    const api = await newKey();
    const answers = [await api.get("/api/v1/chain"), await api.get("/api/v1/events/none"), await api.post("/api/v1/sold", [])];
    expect(answers.map((answer) => answer.status)).toEqual([200, 404, 200]);
    answers.forEach((answer, i) => expectRateHeaders(answer, LIMIT - 1 - i));

    for (const request of [() => api.get("/api/v1/chain"), () => api.post("/stream", [])]) {
      const limited = await request();
      expect(limited.status).toBe(429);
      expect(limited.body).toEqual({ status: "error", error: { code: "rate_limited", message: expect.any(String) } });
      expectRateHeaders(limited, 0);
      const retryAfter = Number(header(limited, "retry-after"));
      expect(Number.isInteger(retryAfter)).toBe(true);
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      expect(retryAfter).toBeLessThanOrEqual(testApp.config.rateLimit.durationSeconds);
    }
  });

  it("a limited request is not applied; another key of the same organization still passes", async () => {
    const limitedApi = await newKey();
    const eventId = id("ev-rate");
    expect((await limitedApi.post("/api/v1/events", eventBody(eventId, organization.ticketeerId))).status).toBe(200);
    await limitedApi.get("/api/v1/chain");
    await limitedApi.get("/api/v1/chain");
    const ticketId = id("t-rate");
    const refused = await limitedApi.post("/api/v1/sold", [soldItem(eventId, ticketId)]);
    expect(refused.status).toBe(429);
    expect(refused.body.error.code).toBe("rate_limited");

    const otherApi = await newKey();
    const ticket = await otherApi.get(`/api/v1/tickets/${ticketId}`);
    expect(ticket.status).toBe(404);
    expectRateHeaders(ticket, LIMIT - 1);
    const sold = await otherApi.post("/api/v1/sold", [soldItem(eventId, ticketId)]);
    expect(sold.status).toBe(200);
    expect(sold.body[0].status).toBe("success");
    expectRateHeaders(sold, LIMIT - 2);
    // The limited key stays limited.
    expect((await limitedApi.get("/api/v1/chain")).status).toBe(429);
  });

  it("keys of another organization count on their own; /health is not limited", async () => {
    const exhausted = await newKey();
    for (let i = 0; i < LIMIT; i++) expect((await exhausted.get("/api/v1/chain")).status).toBe(200);
    expect((await exhausted.get("/api/v1/chain")).status).toBe(429);

    const other = await testApp.organization();
    const answer = await apiClient(testApp.baseUrl, other.key).get("/api/v1/chain");
    expect(answer.status).toBe(200);
    expectRateHeaders(answer, LIMIT - 1);

    for (let i = 0; i < LIMIT + 2; i++) {
      const health = await apiClient(testApp.baseUrl).get("/health");
      expect(health.status).toBe(200);
      expect(header(health, "ratelimit-limit")).toBeNull();
    }
  });

  it("status reads count on a budget of their own: polling takes none of the writes' room, writes none of polling's", async () => {
    const api = await newKey();
    const accepted = await api.post("/api/v1/events", eventBody(id("ev-status-rate"), organization.ticketeerId));
    expect(accepted.status).toBe(200);
    const statusPath = `/api/v1/actions/${accepted.body.txPromise}`;

    for (let i = 0; i < STATUS_LIMIT; i++) {
      const status = await api.get(statusPath);
      expect(status.status).toBe(200);
      expect(header(status, "ratelimit-limit")).toBe(String(STATUS_LIMIT));
      expect(header(status, "ratelimit-remaining")).toBe(String(STATUS_LIMIT - 1 - i));
    }
    const polledOut = await api.get(statusPath);
    expect(polledOut.status).toBe(429);
    expect(polledOut.body.error).toEqual({ code: "rate_limited", message: expect.stringContaining("status reads") });
    expect(Number(header(polledOut, "retry-after"))).toBeGreaterThanOrEqual(1);

    // The writes' budget has spent one request (the event) whatever the polling did.
    const write = await api.post("/api/v1/sold", []);
    expect(write.status).toBe(200);
    expectRateHeaders(write, LIMIT - 2);
    expect((await api.get("/api/v1/chain")).status).toBe(200);
    expect((await api.post("/api/v1/sold", [])).status).toBe(429);

    const poller = await newKey();
    for (let i = 0; i < LIMIT; i++) await poller.get("/api/v1/chain");
    expect((await poller.get("/api/v1/chain")).status).toBe(429);
    const stillPolling = await poller.get(statusPath);
    expect(stillPolling.status).toBe(200);
    expect(header(stillPolling, "ratelimit-remaining")).toBe(String(STATUS_LIMIT - 1));
  });
});

describe("the actions budget per API key (RATE_LIMIT_ACTIONS)", () => {
  const ACTIONS = 10;
  let actionsApp: TestApp;
  let ticketeerId: string;
  let eventId: string;

  beforeAll(async () => {
    actionsApp = await startTestApp({ RATE_LIMIT_ACTIONS: String(ACTIONS) });
    ticketeerId = (await actionsApp.organization()).ticketeerId;
    eventId = id("ev-actions");
    const setup = await keyOf(actionsApp, ticketeerId);
    expect((await setup.post("/api/v1/events", eventBody(eventId, ticketeerId))).status).toBe(200);
  });

  afterAll(async () => {
    await actionsApp?.close();
  });

  const sales = (count: number) => Array.from({ length: count }, () => ({ action: "soldTicket", data: soldItem(eventId, id("t-actions")) }));

  it("counts every action a request carries: past the budget the whole request is refused 429 rate_limited with Retry-After, and nothing of it is applied", async () => {
    const api = await keyOf(actionsApp, ticketeerId);
    expect((await api.post("/stream", sales(6))).status).toBe(200);

    const refusedActions = sales(5);
    const refused = await api.post("/stream", refusedActions);
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual({ status: "error", error: { code: "rate_limited", message: `At most ${ACTIONS} actions per 10 s per API key.` } });
    expect(header(refused, "ratelimit-limit")).toBe(String(ACTIONS));
    const retryAfter = Number(header(refused, "retry-after"));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(10);
    expect((await api.get(`/api/v1/tickets/${refusedActions[0].data.ticketId}`)).status).toBe(404);

    // The refused request took nothing: what is left still serves a smaller one, on every accepting endpoint.
    expect((await api.post("/api/v1/sold", [soldItem(eventId, id("t")), soldItem(eventId, id("t")), soldItem(eventId, id("t"))])).status).toBe(200);
    expect((await api.post("/api/v1/events", eventBody(id("ev"), ticketeerId))).status).toBe(200);
    expect((await api.post("/api/v1/sold", [soldItem(eventId, id("t"))])).status).toBe(429);
    // Reads are not actions.
    expect((await api.get("/api/v1/chain")).status).toBe(200);
  });

  it("keeps each key's actions apart", async () => {
    const spent = await keyOf(actionsApp, ticketeerId);
    expect((await spent.post("/stream", sales(ACTIONS))).status).toBe(200);
    expect((await spent.post("/stream", sales(1))).status).toBe(429);

    const other = await keyOf(actionsApp, ticketeerId);
    expect((await other.post("/stream", sales(ACTIONS))).status).toBe(200);
  });
});

async function keyOf(app: TestApp, ticketeerId: string): Promise<ReturnType<typeof apiClient>> {
  const issued = await app.app.get(OrganizationsService).issueKey(ticketeerId, "actions");
  return apiClient(app.baseUrl, issued.key);
}
