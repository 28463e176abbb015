import { getQueueToken } from "@nestjs/bull";
import type { Queue } from "bull";
import Redis from "ioredis";
import { DataSource } from "typeorm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { CHAIN_WRITER_QUEUE } from "../../src/chain/queue/chain-writer.queue";
import { PendingActionsSweeper } from "../../src/chain/queue/pending-actions.sweeper";
import { apiClient } from "../support/api-client";
import { eventBody, id, soldItem, UUID } from "../support/fixtures";
import { startTestApp, type TestApp } from "../support/test-app";

/**
 * Redis is not trusted with the work: an accepted request queues a flush, and after the app's Bull
 * keys are lost the sweep queues one again from the ledger. And x-request-id: echoed or generated,
 * and stored on the ledger rows of the request.
 */
let testApp: TestApp;
let api: ReturnType<typeof apiClient>;
let ticketeerId: string;
let queue: Queue;
let redis: Redis;

/** Deletes the Bull keys of this test app only (other processes share this Redis). */
async function deleteBullKeys(): Promise<number> {
  const prefix = `${testApp.config.redis.keyPrefix}:bull:`;
  expect(prefix).toMatch(/^trs-test-[0-9a-f]{8}:bull:$/);
  const keys = await redis.keys(`${prefix}*`);
  if (keys.length > 0) await redis.del(...keys);
  return keys.length;
}

beforeAll(async () => {
  // The api role: no chain writer consumes the queue and no periodic sweep runs; the test calls it.
  testApp = await startTestApp({ APP_ROLE: "api", SWEEP_MIN_AGE_MS: "0", SWEEP_INTERVAL_MS: "3600000" });
  ({ ticketeerId, api } = await testApp.client());
  queue = testApp.app.get<Queue>(getQueueToken(CHAIN_WRITER_QUEUE));
  redis = new Redis(testApp.config.redis.url);
});

afterAll(async () => {
  redis?.disconnect();
  await testApp?.close();
});

describe("the chain writer's queue", () => {
  it("an accepted request queues a flush job; after the Bull keys are deleted the sweep queues one again", async () => {
    expect(CHAIN_WRITER_QUEUE).toBe("chain-writer");
    await deleteBullKeys();
    expect(await queue.getWaiting()).toEqual([]);

    const eventId = id("ev-queue");
    expect((await api.post("/api/v1/events", eventBody(eventId, ticketeerId))).status).toBe(200);
    const waiting = await queue.getWaiting();
    expect(waiting.length).toBeGreaterThanOrEqual(1);
    expect(waiting.map((job) => [job.name, job.data])).toContainEqual(["flush", { reason: "accepted" }]);
    const sold = await api.post("/api/v1/sold", [soldItem(eventId, id("t-queue"))]);
    expect(sold.body[0].status).toBe("success");

    // Redis loses everything of this app's queue.
    expect(await deleteBullKeys()).toBeGreaterThan(0);
    expect(await queue.getWaiting()).toEqual([]);
    expect((await queue.getJobCounts()).waiting).toBe(0);

    const sweeper = testApp.app.get(PendingActionsSweeper);
    expect(await sweeper.sweep()).toBe(2);
    const requeued = await queue.getWaiting();
    expect(requeued.map((job) => [job.name, job.data])).toEqual([["flush", { reason: "sweep" }]]);

    // A second sweep does not pile up jobs while one is waiting.
    expect(await sweeper.sweep()).toBe(2);
    expect(await queue.getWaiting()).toHaveLength(1);
  });

  it("a request with nothing to broadcast queues nothing; the sweep has nothing to do once nothing waits", async () => {
    const eventId = id("ev-nobroadcast");
    const ticketId = id("t-nobroadcast");
    await api.post("/stream", [
      { action: "newEvent", data: { eventId, currency: "EUR", callbackUrl: "https://cb.example.com" } },
      { action: "soldTicket", data: { eventId, ticketId, price: "1" } },
    ]);
    await deleteBullKeys();
    // A new callbackUrl is the ledger's alone: nothing of it goes on chain.
    const update = await api.post("/stream", [{ action: "updateEvent", data: { eventId, callbackUrl: "https://cb.example.com/other" } }]);
    expect(update.body.data[0].status).toBe("success");
    expect(await queue.getWaiting()).toEqual([]);

    // Pretend the writer sent everything: nothing waits, the sweep queues nothing.
    await testApp.app.get(DataSource).query(`UPDATE chain_actions SET status = 'pending' WHERE status = 'waiting_broadcast'`);
    expect(await testApp.app.get(PendingActionsSweeper).sweep()).toBe(0);
    expect(await queue.getWaiting()).toEqual([]);
  });
});

describe("x-request-id", () => {
  const rowsOf = async (requestId: string) =>
    await testApp.app.get(DataSource).query<
      {
        kind: string;
        requested_as: string;
      }[]
    >(`SELECT kind, requested_as FROM chain_actions WHERE request_id = $1 ORDER BY seq`, [requestId]);

  it("is echoed when sent and stored on every ledger row of the request", async () => {
    const requestId = `req-${id("echo")}`;
    const eventId = id("ev-rid");
    const ticketId = id("t-rid");
    const answer = await api.request(
      "POST",
      "/stream",
      [
        { action: "newEvent", data: { eventId, currency: "EUR", callbackUrl: "https://cb.example.com" } },
        { action: "soldTicket", data: { eventId, ticketId, price: "1" } },
        { action: "scannedTicket", data: { ticketId } },
        { action: "scannedTicket", data: { ticketId: "unknown" } },
      ],
      { "x-request-id": requestId },
    );
    expect(answer.status).toBe(200);
    expect(answer.headers.get("x-request-id")).toBe(requestId);
    expect(await rowsOf(requestId)).toEqual([
      { kind: "newEvent", requested_as: "newEvent" },
      { kind: "sold", requested_as: "soldTicket" },
      { kind: "scanned", requested_as: "scannedTicket" },
    ]);

    const eventRequest = `req-${id("event")}`;
    const created = await api.request("POST", "/api/v1/events", eventBody(id("ev-rid2"), ticketeerId), { "x-request-id": eventRequest });
    expect(created.headers.get("x-request-id")).toBe(eventRequest);
    expect(await rowsOf(eventRequest)).toEqual([{ kind: "newEvent", requested_as: "events" }]);

    const soldRequest = `req-${id("sold")}`;
    const sold = await api.request("POST", "/api/v1/sold", [soldItem(eventId, id("t1")), soldItem(eventId, id("t2"))], { "x-request-id": soldRequest });
    expect(sold.headers.get("x-request-id")).toBe(soldRequest);
    expect(await rowsOf(soldRequest)).toEqual([
      { kind: "sold", requested_as: "sold" },
      { kind: "sold", requested_as: "sold" },
    ]);
  });

  it("is generated when not sent (or not usable), answered in the header and stored", async () => {
    const eventId = id("ev-gen");
    const answer = await api.post("/api/v1/events", eventBody(eventId, ticketeerId));
    const generated = answer.headers.get("x-request-id");
    expect(generated).toMatch(UUID);
    expect(await rowsOf(generated as string)).toEqual([{ kind: "newEvent", requested_as: "events" }]);

    const unusable = await api.request("POST", "/api/v1/sold", [soldItem(eventId, id("t-gen"))], { "x-request-id": "has spaces and ; semicolons" });
    const replaced = unusable.headers.get("x-request-id");
    expect(replaced).toMatch(UUID);
    expect(await rowsOf(replaced as string)).toEqual([{ kind: "sold", requested_as: "sold" }]);
    expect(await rowsOf("has spaces and ; semicolons")).toEqual([]);

    const tooLong = await api.request("GET", `/api/v1/events/${eventId}`, undefined, { "x-request-id": "r".repeat(129) });
    expect(tooLong.headers.get("x-request-id")).toMatch(UUID);
  });

  it("is answered on reads, errors and refusals too", async () => {
    const read = await api.request("GET", "/api/v1/chain", undefined, { "x-request-id": "read-1" });
    expect(read.headers.get("x-request-id")).toBe("read-1");
    const notFound = await api.request("GET", "/api/v1/tickets/none", undefined, { "x-request-id": "missing-1" });
    expect(notFound.status).toBe(404);
    expect(notFound.headers.get("x-request-id")).toBe("missing-1");
    const badJson = await api.request("POST", "/api/v1/sold", "{", { "x-request-id": "bad-json-1" });
    expect(badJson.status).toBe(400);
    expect(badJson.headers.get("x-request-id")).toBe("bad-json-1");
    const forbidden = await apiClient(testApp.baseUrl).request("POST", "/api/v1/sold", [], { "x-request-id": "forbidden-1" });
    expect(forbidden.status).toBe(403);
    expect(forbidden.headers.get("x-request-id")).toBe("forbidden-1");
    const health = await apiClient(testApp.baseUrl).request("GET", "/health", undefined, { "x-request-id": "health-1" });
    expect(health.headers.get("x-request-id")).toBe("health-1");
  });
});
