import { randomUUID } from "node:crypto";
import type { AddressInfo } from "node:net";

import type { INestApplication } from "@nestjs/common";
import { Client } from "pg";
import { DataSource } from "typeorm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { createApp } from "../../src/app.setup";
import { IdempotencyStore } from "../../src/idempotency/idempotency.store";
import { type ApiClient, apiClient } from "../support/api-client";
import { eventBody, id, soldItem, UUID } from "../support/fixtures";
import { startTestApp, type TestApp } from "../support/test-app";

/**
 * Idempotency-Key on every POST (Stripe's semantics): replay of the stored answer, 422 for another
 * request under the same key, 409 while the first runs, a client that left before its answer, keys
 * per organization, and keys that outlive the process.
 */
let testApp: TestApp;
let api: ApiClient;
let ticketeerId: string;
let apiKey: string;
let eventId: string;

const post = (client: ApiClient, path: string, body: unknown, key: string) => client.request("POST", path, body, { "idempotency-key": key });

async function count(sql: string, params: unknown[] = []): Promise<number> {
  const [row] = await testApp.app.get(DataSource).query<{ n: string }[]>(sql, params);
  return Number(row.n);
}

const actionCount = () => count("SELECT count(*) AS n FROM chain_actions");

async function keyRow(key: string): Promise<{ state: string; applied: boolean } | undefined> {
  const [row] = await testApp.app
    .get(DataSource)
    .query<{ state: string; applied: boolean }[]>("SELECT state, applied FROM idempotency_keys WHERE key = $1", [key]);
  return row;
}

async function until(check: () => Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Holds every acceptance on tickets (they lock ticket rows) until `release`: the first request stays running. */
async function holdTickets(): Promise<() => Promise<void>> {
  const client = new Client({ connectionString: testApp.databaseUrl });
  await client.connect();
  await client.query("BEGIN");
  await client.query("LOCK TABLE tickets IN EXCLUSIVE MODE");
  return async () => {
    await client.query("COMMIT");
    await client.end();
  };
}

async function soldTicket(): Promise<string> {
  const ticketId = id("t");
  const answer = await api.post("/api/v1/sold", [soldItem(eventId, ticketId)]);
  expect(answer.body[0].status).toBe("success");
  return ticketId;
}

/** IDEMPOTENCY_MAX_KEYS_PER_ORGANIZATION here: small enough to reach (IDEMPOTENCY_MAX_ANSWER_BYTES keeps its 1 MiB default). */
const MAX_KEYS = 30;
const MAX_ANSWER_BYTES = 1024 * 1024;

beforeAll(async () => {
  testApp = await startTestApp({ IDEMPOTENCY_MAX_KEYS_PER_ORGANIZATION: String(MAX_KEYS) });
  ({ ticketeerId, key: apiKey } = await testApp.organization());
  api = apiClient(testApp.baseUrl, apiKey);
  eventId = id("ev-idem");
  expect((await api.post("/api/v1/events", eventBody(eventId, ticketeerId))).status).toBe(200);
});

afterAll(async () => {
  await testApp?.close();
});

describe("Idempotency-Key", () => {
  it("replays the first answer of /resold (status, body, Idempotent-Replayed: true) and applies nothing again", async () => {
    const ticketId = await soldTicket();
    const key = randomUUID();
    const body = [{ ticketId, price: "20.00" }];
    const first = await post(api, "/api/v1/resold", body, key);
    expect(first.status).toBe(200);
    expect(first.body).toEqual([{ txPromise: expect.stringMatching(UUID), ticketId, status: "success" }]);
    expect(first.headers.get("idempotent-replayed")).toBeNull();
    const actions = await actionCount();

    const again = await post(api, "/api/v1/resold", body, key);
    expect(again.status).toBe(200);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.body).toEqual(first.body);
    expect(await actionCount()).toBe(actions);
    expect(await count("SELECT count(*) AS n FROM chain_actions WHERE kind = 'resold'")).toBe(1);
    expect((await api.get(`/api/v1/tickets/${ticketId}`)).body.resales).toBe(1);
  });

  it("replays an error answer too: POST /events refused 409 event_exists answers the same 409 again", async () => {
    const key = randomUUID();
    const first = await post(api, "/api/v1/events", eventBody(eventId, ticketeerId), key);
    expect(first.status).toBe(409);
    const again = await post(api, "/api/v1/events", eventBody(eventId, ticketeerId), key);
    expect(again.status).toBe(409);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.body).toEqual(first.body);
  });

  it("answers 422 idempotency_key_reused for the same key with another body or another endpoint, and applies nothing", async () => {
    const ticketId = await soldTicket();
    const key = randomUUID();
    expect((await post(api, "/api/v1/resold", [{ ticketId, price: "20.00" }], key)).status).toBe(200);
    const actions = await actionCount();
    const other = await post(api, "/api/v1/resold", [{ ticketId, price: "21.00" }], key);
    expect(other.status).toBe(422);
    expect(other.body).toEqual({
      status: "error",
      error: { code: "idempotency_key_reused", message: expect.stringContaining("another request"), field: "Idempotency-Key" },
    });
    const elsewhere = await post(api, "/api/v1/scanned", [{ ticketId }], key);
    expect(elsewhere.status).toBe(422);
    expect(await actionCount()).toBe(actions);
  });

  it("answers 409 idempotency_key_in_use while the first request runs, then replays its answer", async () => {
    const ticketId = await soldTicket();
    const key = randomUUID();
    const body = [{ ticketId, price: "30.00" }];
    const release = await holdTickets();
    let first: Promise<Awaited<ReturnType<typeof post>>>;
    try {
      first = post(api, "/api/v1/resold", body, key);
      await until(async () => (await keyRow(key))?.state === "running");
      const concurrent = await post(api, "/api/v1/resold", body, key);
      expect(concurrent.status).toBe(409);
      expect(concurrent.body.error).toMatchObject({ code: "idempotency_key_in_use", field: "Idempotency-Key" });
    } finally {
      await release();
    }
    const answered = await first;
    expect(answered.status).toBe(200);
    const replay = await post(api, "/api/v1/resold", body, key);
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    expect(replay.body).toEqual(answered.body);
    expect(
      await count("SELECT count(*) AS n FROM chain_actions a JOIN tickets t ON t.id = a.ticket_ref WHERE t.ticket_id = $1 AND a.kind = 'resold'", [ticketId]),
    ).toBe(1);
  });

  it("a client that disconnects before its answer gets 409 while the request runs, then the stored answer: never a second resale", async () => {
    const ticketId = await soldTicket();
    const key = randomUUID();
    const body = [{ ticketId, price: "40.00" }];
    const release = await holdTickets();
    try {
      const aborted = new AbortController();
      const gone = fetch(`${testApp.baseUrl}/api/v1/resold`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-api-key": apiKey, "idempotency-key": key },
        body: JSON.stringify(body),
        signal: aborted.signal,
      }).catch((error: unknown) => error);
      await until(async () => (await keyRow(key))?.state === "running");
      aborted.abort();
      expect(await gone).toBeInstanceOf(Error);
      const retry = await post(api, "/api/v1/resold", body, key);
      expect(retry.status).toBe(409);
    } finally {
      await release();
    }
    await until(async () => (await keyRow(key))?.state === "done");
    const retry = await post(api, "/api/v1/resold", body, key);
    expect(retry.status).toBe(200);
    expect(retry.headers.get("idempotent-replayed")).toBe("true");
    expect(retry.body).toEqual([{ txPromise: expect.stringMatching(UUID), ticketId, status: "success" }]);
    expect(
      await count("SELECT count(*) AS n FROM chain_actions a JOIN tickets t ON t.id = a.ticket_ref WHERE t.ticket_id = $1 AND a.kind = 'resold'", [ticketId]),
    ).toBe(1);
    expect((await api.get(`/api/v1/tickets/${ticketId}`)).body.resales).toBe(1);
  });

  it("marks the key applied in the acceptance transaction; a claim abandoned unapplied is taken over, an applied one never", async () => {
    const ticketId = await soldTicket();
    const key = randomUUID();
    const body = [{ ticketId, price: "45.00" }];
    expect((await post(api, "/api/v1/resold", body, key)).status).toBe(200);
    expect(await keyRow(key)).toEqual({ state: "done", applied: true });
    const database = testApp.app.get(DataSource);

    // A process that died after committing, before keeping its answer: never applied again.
    await database.query("UPDATE idempotency_keys SET state = 'running', locked_until = now() - interval '1 second' WHERE key = $1", [key]);
    const lost = await post(api, "/api/v1/resold", body, key);
    expect(lost.status).toBe(409);
    expect(lost.body.error).toMatchObject({ code: "idempotency_key_in_use", message: expect.stringContaining("applied") });

    // A process that died before committing: the retry runs the request, once.
    await database.query("UPDATE idempotency_keys SET applied = false WHERE key = $1", [key]);
    const retried = await post(api, "/api/v1/resold", body, key);
    expect(retried.status).toBe(200);
    expect(retried.headers.get("idempotent-replayed")).toBeNull();
    expect(await keyRow(key)).toEqual({ state: "done", applied: true });
  });

  it("keys are per organization: the same key in two organizations are two requests", async () => {
    const other = await testApp.client();
    const key = randomUUID();
    const mine = await post(api, "/api/v1/events", eventBody(id("ev-a"), ticketeerId), key);
    const theirs = await post(other.api, "/api/v1/events", eventBody(id("ev-b"), other.ticketeerId), key);
    expect(mine.status).toBe(200);
    expect(theirs.status).toBe(200);
    expect(theirs.headers.get("idempotent-replayed")).toBeNull();
    expect(theirs.body.txPromise).not.toBe(mine.body.txPromise);
    expect(await count("SELECT count(*) AS n FROM idempotency_keys WHERE key = $1", [key])).toBe(2);
  });

  it("works on /stream too, and a request without the header is never deduplicated", async () => {
    const key = randomUUID();
    const actions = [{ action: "newEvent", data: { eventId: id("ev-s"), currency: "EUR", callbackUrl: "https://cb.example.com/x" } }];
    const first = await post(api, "/stream", actions, key);
    const again = await post(api, "/stream", actions, key);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.body).toEqual(first.body);
    const plain = await api.post("/stream", actions);
    expect(plain.body.data[0].error.code).toBe("event_exists");
  });

  it("refuses a malformed key with 400 invalid_field", async () => {
    const answer = await post(api, "/api/v1/resold", [], "x".repeat(256));
    expect(answer.status).toBe(400);
    expect(answer.body.error).toMatchObject({ code: "invalid_field", field: "Idempotency-Key" });
  });

  it("expired keys are deleted and their key is free again", async () => {
    const ticketId = await soldTicket();
    const key = randomUUID();
    expect((await post(api, "/api/v1/resold", [{ ticketId, price: "50.00" }], key)).status).toBe(200);
    await testApp.app.get(DataSource).query("UPDATE idempotency_keys SET expires_at = now() - interval '1 second' WHERE key = $1", [key]);
    const fresh = await post(api, "/api/v1/resold", [{ ticketId, price: "51.00" }], key);
    expect(fresh.status).toBe(200);
    expect(fresh.headers.get("idempotent-replayed")).toBeNull();
    await testApp.app.get(DataSource).query("UPDATE idempotency_keys SET expires_at = now() - interval '1 second' WHERE key = $1", [key]);
    expect(await testApp.app.get(IdempotencyStore).cleanUp()).toBeGreaterThanOrEqual(1);
    expect(await keyRow(key)).toBeUndefined();
  });

  it("a retried /sold of an existing ticket answers ticket_exists with the sale's txPromise", async () => {
    const ticketId = id("t-retry");
    const first = await api.post("/api/v1/sold", [soldItem(eventId, ticketId)]);
    const retried = await api.post("/api/v1/sold", [soldItem(eventId, ticketId)]);
    expect(retried.body).toEqual([
      { ticketId, status: "error", error: expect.objectContaining({ code: "ticket_exists" }), txPromise: first.body[0].txPromise },
    ]);
  });
});

describe("Idempotency-Key limits", () => {
  /** The id of the organization whose ticketeerId this is. */
  async function organizationId(ticketeerId: string): Promise<string> {
    const [row] = await testApp.app.get(DataSource).query<{ id: string }[]>("SELECT id FROM organizations WHERE ticketeer_id = $1", [ticketeerId]);
    return row.id;
  }

  /** Bytes of answers the organization's keys keep. */
  const keptBytes = (organization: string) =>
    count("SELECT coalesce(sum(octet_length(response_body)), 0) AS n FROM idempotency_keys WHERE organization_id = $1", [organization]);

  /** `count` soldTicket actions refused (their event does not exist), each answer about 440 bytes. */
  const refusedSales = (count: number) =>
    Array.from({ length: count }, (_, i) => ({
      action: "soldTicket",
      data: { eventId: `missing-${randomUUID()}`, ticketId: `${"t".repeat(200)}-${i}`, price: "10.00" },
    }));

  it("keeps no answer over IDEMPOTENCY_MAX_ANSWER_BYTES: 20 keyed /stream requests of 5,000 refused items each store almost nothing", async () => {
    const flooder = await testApp.client();
    const organization = await organizationId(flooder.ticketeerId);
    const requests = Array.from({ length: 20 }, () => ({ key: randomUUID(), body: refusedSales(5_000) }));
    for (const { key, body } of requests) {
      const answer = await post(flooder.api, "/stream", body, key);
      expect(answer.status).toBe(200);
      expect(answer.body.data).toHaveLength(5_000);
      expect(answer.body.data.every((item: { error?: { code: string } }) => item.error?.code === "event_not_found")).toBe(true);
      expect(Buffer.byteLength(JSON.stringify(answer.body))).toBeGreaterThan(2 * MAX_ANSWER_BYTES);
    }
    // 20 answers of over 2 MB each: none of them kept.
    expect(await keptBytes(organization)).toBeLessThan(20 * 1024);

    // Nothing was applied, so nothing holds the keys: a retry with one runs again, and refuses the same.
    const actions = await actionCount();
    const retry = await post(flooder.api, "/stream", requests[0].body, requests[0].key);
    expect(retry.status).toBe(200);
    expect(retry.headers.get("idempotent-replayed")).toBeNull();
    expect(retry.body.data.every((item: { error?: { code: string } }) => item.error?.code === "event_not_found")).toBe(true);
    expect(await actionCount()).toBe(actions);
  });

  it("never applies twice a request whose answer was too large to keep: a retry gets 409 idempotency_answer_not_kept", async () => {
    const eventId = id("ev-large");
    const ticketIds = [id("t"), id("t"), id("t")];
    const body = [
      { action: "newEvent", data: { eventId, currency: "EUR", callbackUrl: "https://cb.example.com/x" } },
      ...ticketIds.map((ticketId) => ({ action: "soldTicket", data: { eventId, ticketId, price: "10.00" } })),
      ...refusedSales(3_000),
    ];
    const key = randomUUID();
    const first = await post(api, "/stream", body, key);
    expect(first.status).toBe(200);
    expect(first.body.data.slice(0, 4).map((item: { status: string }) => item.status)).toEqual(["success", "success", "success", "success"]);
    expect(Buffer.byteLength(JSON.stringify(first.body))).toBeGreaterThan(MAX_ANSWER_BYTES);
    expect(await keyRow(key)).toEqual({ state: "done", applied: true });
    const actions = await actionCount();

    const retry = await post(api, "/stream", body, key);
    expect(retry.status).toBe(409);
    expect(retry.headers.get("idempotent-replayed")).toBeNull();
    expect(retry.body).toEqual({
      status: "error",
      error: { code: "idempotency_answer_not_kept", field: "Idempotency-Key", message: expect.stringContaining("X-Request-Id") },
    });
    expect(await actionCount()).toBe(actions);
    for (const ticketId of ticketIds) expect((await api.get(`/api/v1/tickets/${ticketId}`)).body.actions).toHaveLength(1);
  });

  it("frees the key of a request over IDEMPOTENCY_MAX_ANSWER_BYTES that applied nothing: a retry runs it again, and refuses the same", async () => {
    const key = randomUUID();
    // Refused field by field, before any acceptance: nothing applied, nothing to apply twice.
    const body = Array.from({ length: 3_000 }, (_, i) => ({ action: "soldTicket", data: { eventId, ticketId: `${"u".repeat(200)}-${i}`, price: "ten" } }));
    const first = await post(api, "/stream", body, key);
    expect(first.status).toBe(200);
    expect(first.body.data.every((item: { error?: { code: string } }) => item.error?.code === "invalid_field")).toBe(true);
    expect(Buffer.byteLength(JSON.stringify(first.body))).toBeGreaterThan(MAX_ANSWER_BYTES);
    expect(await keyRow(key)).toBeUndefined();

    const retry = await post(api, "/stream", body, key);
    expect(retry.status).toBe(200);
    expect(retry.headers.get("idempotent-replayed")).toBeNull();
    expect(retry.body).toEqual(first.body);
  });

  it("refuses a new key past IDEMPOTENCY_MAX_KEYS_PER_ORGANIZATION with 429 idempotency_keys_exhausted, nothing applied; its keys still replay", async () => {
    const busy = await testApp.client();
    const organization = await organizationId(busy.ticketeerId);
    const keys = Array.from({ length: MAX_KEYS }, () => randomUUID());
    const bodies = keys.map(() => eventBody(id("ev-k"), busy.ticketeerId));
    for (const [index, key] of keys.entries()) expect((await post(busy.api, "/api/v1/events", bodies[index], key)).status).toBe(200);
    const actions = await actionCount();

    const refused = await post(busy.api, "/api/v1/events", eventBody(id("ev-k"), busy.ticketeerId), randomUUID());
    expect(refused.status).toBe(429);
    expect(refused.body.error).toMatchObject({ code: "idempotency_keys_exhausted", field: "Idempotency-Key" });
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(23 * 3600);
    expect(await actionCount()).toBe(actions);
    expect(await count("SELECT count(*) AS n FROM idempotency_keys WHERE organization_id = $1", [organization])).toBe(MAX_KEYS);

    // A key it holds replays; a request without a key runs; another organization is not concerned.
    const replay = await post(busy.api, "/api/v1/events", bodies[0], keys[0]);
    expect(replay.status).toBe(200);
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    expect((await busy.api.post("/api/v1/events", eventBody(id("ev-k"), busy.ticketeerId))).status).toBe(200);
    expect((await post(api, "/api/v1/events", eventBody(id("ev-k"), ticketeerId), randomUUID())).status).toBe(200);

    // Once a key expires, a new one is taken again (the count is looked at again within a second).
    await testApp.app
      .get(DataSource)
      .query("UPDATE idempotency_keys SET expires_at = now() - interval '1 second' WHERE organization_id = $1 AND key = $2", [organization, keys[1]]);
    const body = eventBody(id("ev-k"), busy.ticketeerId);
    const key = randomUUID();
    await until(async () => (await post(busy.api, "/api/v1/events", body, key)).status === 200);
  });
});

describe("Idempotency-Key across a restart", () => {
  let restarted: INestApplication | undefined;

  afterAll(async () => {
    await restarted?.close();
  });

  it("keys live in PostgreSQL: after the app restarts, the same request is answered from the stored answer", async () => {
    const ticketId = await soldTicket();
    const key = randomUUID();
    const body = [{ ticketId, price: "60.00" }];
    const first = await post(api, "/api/v1/resold", body, key);
    expect(first.status).toBe(200);

    await testApp.app.close();
    testApp.app.close = () => Promise.resolve(); // closed here; testApp.close() only drops the database
    restarted = await createApp(testApp.config);
    await restarted.listen(0, "127.0.0.1");
    const client = apiClient(`http://127.0.0.1:${(restarted.getHttpServer().address() as AddressInfo).port}`, apiKey);
    const actions = Number((await restarted.get(DataSource).query<{ n: string }[]>("SELECT count(*) AS n FROM chain_actions"))[0].n);

    const replay = await post(client, "/api/v1/resold", body, key);
    expect(replay.status).toBe(200);
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    expect(replay.body).toEqual(first.body);
    expect(Number((await restarted.get(DataSource).query<{ n: string }[]>("SELECT count(*) AS n FROM chain_actions"))[0].n)).toBe(actions);
  });
});
