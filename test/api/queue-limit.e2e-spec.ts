import { DataSource } from "typeorm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { freePort } from "../../scripts/stack/ports";
import { type ApiAnswer, apiClient, type ApiClient } from "../support/api-client";
import { eventBody, id, newEventData, soldItem } from "../support/fixtures";
import { startTestApp, type TestApp } from "../support/test-app";
import { startWorkerProcess, type WorkerProcess } from "../support/worker-process";

/**
 * ORG_MAX_QUEUED_ACTIONS: an organization's actions accepted and not yet on chain. No chain is
 * configured here, so every accepted action stays waiting: the queue only fills.
 */
const LIMIT = 10;
let testApp: TestApp;
let secondApi: WorkerProcess | undefined;
let secondApiUrl: string;

beforeAll(async () => {
  testApp = await startTestApp({ ORG_MAX_QUEUED_ACTIONS: String(LIMIT) });
  // Another api process on the same ledger, for the race below.
  const port = await freePort();
  secondApiUrl = `http://127.0.0.1:${port}`;
  secondApi = startWorkerProcess({
    APP_ROLE: "api",
    PORT: String(port),
    DATABASE_URL: testApp.databaseUrl,
    REDIS_KEY_PREFIX: testApp.config.redis.keyPrefix,
    ORG_MAX_QUEUED_ACTIONS: String(LIMIT),
    RATE_LIMIT_REQUESTS: "100000",
  });
});

afterAll(async () => {
  await secondApi?.kill();
  await testApp?.close();
});

const codes = (entries: { status: string; error?: { code: string } }[]) => entries.map((entry) => (entry.status === "success" ? "success" : entry.error?.code));
const sales = (eventId: string, count: number) => Array.from({ length: count }, () => ({ action: "soldTicket", data: soldItem(eventId, id("t")) }));

function expectRetryAfter(answer: ApiAnswer): void {
  expect(answer.headers.get("retry-after")).toBe("5");
}

describe("an organization's queue of actions not yet on chain", () => {
  it("accepts the /stream items that fit and refuses each of the rest queue_full, with Retry-After; off-chain actions still pass", async () => {
    const { api } = await testApp.client();
    const eventId = id("ev");

    const answer = await api.post("/stream", [{ action: "newEvent", data: newEventData(eventId) }, ...sales(eventId, 12)]);

    expect(answer.status).toBe(200);
    expect(codes(answer.body.data)).toEqual([...Array(10).fill("success"), "queue_full", "queue_full", "queue_full"]);
    expect(answer.body.data[12].error).toEqual({ code: "queue_full", message: expect.stringContaining(`At most ${LIMIT} actions`) });
    expectRetryAfter(answer);

    // Full: an updateEvent of its callbackUrl alone (nothing for the chain) is accepted; a metadata update,
    // which goes on chain, and a sale are not.
    const ticketId = answer.body.data[1].ticketId as string;
    const more = await api.post("/stream", [
      { action: "updateTicket", data: { ticketId, uri: "ipfs://bafy" } },
      { action: "updateEvent", data: { eventId, callbackUrl: "https://integrator.example.com/other" } },
      ...sales(eventId, 1),
    ]);
    expect(codes(more.body.data)).toEqual(["queue_full", "success", "queue_full"]);
    expectRetryAfter(more);
  });

  it("refuses per item on the per-action endpoints too (200, Retry-After), and answers 429 queue_full on POST /api/v1/events", async () => {
    const { api, ticketeerId } = await testApp.client();
    const eventId = id("ev");
    expect((await api.post("/api/v1/events", eventBody(eventId, ticketeerId))).status).toBe(200);
    const sold = await api.post(
      "/api/v1/sold",
      Array.from({ length: 11 }, () => soldItem(eventId, id("t"))),
    );
    expect(sold.status).toBe(200);
    expect(codes(sold.body)).toEqual([...Array(9).fill("success"), "queue_full", "queue_full"]);
    expectRetryAfter(sold);

    const allRefused = await api.post("/api/v1/sold", [soldItem(eventId, id("t"))]);
    expect([allRefused.status, codes(allRefused.body)]).toEqual([200, ["queue_full"]]);
    expectRetryAfter(allRefused);

    const event = await api.post("/api/v1/events", eventBody(id("ev"), ticketeerId));
    expect(event.status).toBe(429);
    expect(event.body).toEqual({ status: "error", error: { code: "queue_full", message: expect.any(String) }, eventId: expect.any(String) });
    expectRetryAfter(event);
  });

  it("leaves no Retry-After when nothing was refused for the queue, and keeps each organization's queue its own", async () => {
    const full = await testApp.client();
    const eventId = id("ev");
    await full.api.post("/stream", [{ action: "newEvent", data: newEventData(eventId) }, ...sales(eventId, 9)]);
    expect(codes((await full.api.post("/stream", sales(eventId, 1))).body.data)).toEqual(["queue_full"]);

    const other = await testApp.client();
    const otherEvent = id("ev");
    const answer = await other.api.post("/stream", [{ action: "newEvent", data: newEventData(otherEvent) }, ...sales(otherEvent, 2)]);
    expect(codes(answer.body.data)).toEqual(["success", "success", "success"]);
    expect(answer.headers.get("retry-after")).toBeNull();
  });

  it("holds across api processes: concurrent requests to two of them accept exactly the limit between them", async () => {
    const organization = await testApp.organization();
    const apis: ApiClient[] = [apiClient(testApp.baseUrl, organization.key), apiClient(secondApiUrl, organization.key)];
    await waitUntilAnswers(apis[1]);
    const eventId = id("ev");
    expect((await apis[0].post("/api/v1/events", eventBody(eventId, organization.ticketeerId))).status).toBe(200);

    const answers = await Promise.all(Array.from({ length: 8 }, (_, i) => apis[i % 2].post("/stream", sales(eventId, 3))));

    const accepted = answers.flatMap((answer) => codes(answer.body.data)).filter((code) => code === "success");
    expect(accepted).toHaveLength(LIMIT - 1);
    const [{ waiting }] = await testApp.app
      .get(DataSource)
      .query<{ waiting: number }[]>(
        `SELECT count(*)::int AS waiting FROM chain_actions a JOIN organizations o ON o.id = a.organization_id WHERE o.ticketeer_id = $1 AND a.status = 'waiting_broadcast'`,
        [organization.ticketeerId],
      );
    expect(waiting).toBe(LIMIT);
  });
});

async function waitUntilAnswers(api: ApiClient): Promise<void> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    try {
      if ((await api.get("/health/live")).status === 200) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`the second api process did not start: ${secondApi?.output()}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}
