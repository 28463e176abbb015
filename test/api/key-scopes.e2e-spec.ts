import type { INestApplication } from "@nestjs/common";
import { DataSource } from "typeorm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { KEY_SCOPES, type KeyScope, scopeCovers } from "../../src/auth/key-scope";
import { OrganizationsService } from "../../src/auth/organizations.service";
import { KIND_OF_STREAM_ACTION, type StreamActionName } from "../../src/common/actions";
import { DOCS_PATHS } from "../../src/security/keyless-paths";
import { publicRoutes } from "../../src/security/public-routes";
import { type ApiAnswer, apiClient, type ApiClient } from "../support/api-client";
import { eventBody, id, newEventData, soldItem, WALLET } from "../support/fixtures";
import { startTestApp, type TestApp } from "../support/test-app";

/**
 * Scoped API keys against the real app: every route the app serves, and every /stream action, with a
 * key of each scope. A route (or an action) the tables below do not list fails the first tests: its
 * scope must be decided here. A key outside a route's scope gets exactly
 * 403 {"message":"Forbidden","code":"key_scope"} and nothing of its request is applied (no row of
 * any table changes); a key inside it gets the route's answer.
 */

const FORBIDDEN_SCOPE = { message: "Forbidden", code: "key_scope" };

/** What a route's request needs: fresh ids, and the subjects the fixture prepared (each taken once). */
interface Subjects {
  eventId: string;
  /** A sold ticket nothing else was done to yet. */
  soldTicket: () => string;
  /** The promise of a sale nothing came after, still waiting for the chain (this app has none). */
  waitingSale: () => string;
  /** A checked-in ticket, not claimed. */
  checkedInTicket: () => string;
  /** An event with a ticket sold, not cancelled, nothing else depends on: each taken once. */
  cancellableEvent: () => string;
  callbackId: string;
  ticketeerId: string;
  /** A webhook endpoint of the organization, which a test send cannot reach (its answer is the error). */
  webhookId: string;
  /** An endpoint nothing else uses (each taken once): for the deletes. */
  spareWebhook: () => string;
}

interface RouteCase {
  scope: KeyScope;
  /** A request the route answers with success for a key of its scope. */
  send: (api: ApiClient, subjects: Subjects) => Promise<ApiAnswer>;
  /** Its success status: 200 unless told. */
  status?: number;
  /**
   * false: a write route whose answer here changes no row. This app has no chain, so a holder proof's
   * challenge answers 503 (nothing issued) and a verify of an unknown nonce uses nothing.
   */
  writes?: boolean;
}

const post = (path: string, body: (subjects: Subjects) => unknown) => (api: ApiClient, subjects: Subjects) => api.post(path, body(subjects));
const get = (path: (subjects: Subjects) => string) => (api: ApiClient, subjects: Subjects) => api.get(path(subjects));
const checkIn = (subjects: Subjects) => [{ ticketId: subjects.soldTicket(), orderTime: 1_750_000_100 }];
const streamedCheckIn = (subjects: Subjects) => [{ action: "scannedTicket", data: { ticketId: subjects.soldTicket() } }];

/** Every route that takes a key, as the OpenAPI document names it, with the scope it needs. */
const ROUTES: Record<string, RouteCase> = {
  "POST /api/v1/events": { scope: "full", send: post("/api/v1/events", (s) => eventBody(id("ev"), s.ticketeerId)) },
  "POST /api/v1/events/{eventId}/cancel": { scope: "full", send: (api, s) => api.post(`/api/v1/events/${s.cancellableEvent()}/cancel`, undefined) },
  "GET /api/v1/events/{eventId}": { scope: "read", send: get((s) => `/api/v1/events/${s.eventId}`) },
  "POST /api/v1/sold": { scope: "full", send: post("/api/v1/sold", (s) => [soldItem(s.eventId, id("t"))]) },
  "POST /api/v1/resold": { scope: "full", send: post("/api/v1/resold", (s) => [{ ticketId: s.soldTicket(), orderTime: 1_750_000_100, price: "12.00" }]) },
  "POST /api/v1/scanned": { scope: "scan", send: post("/api/v1/scanned", checkIn) },
  "POST /api/v1/checkedin": { scope: "scan", send: post("/api/v1/checkedin", checkIn) },
  "POST /api/v1/invalidated": { scope: "full", send: post("/api/v1/invalidated", (s) => [{ ticketId: s.soldTicket(), orderTime: 1_750_000_100 }]) },
  "GET /api/v1/tickets": { scope: "read", send: get(() => `/api/v1/tickets?holder=${WALLET}`) },
  "GET /api/v1/tickets/{ticketId}": { scope: "read", send: get((s) => `/api/v1/tickets/${s.soldTicket()}`) },
  "POST /stream": { scope: "scan", send: post("/stream", streamedCheckIn) },
  "POST /api/v1/stream": { scope: "scan", send: post("/api/v1/stream", streamedCheckIn) },
  "GET /api/v1/actions/events": { scope: "read", send: (api, s) => openEventStream(api, `/api/v1/actions/events?eventId=${s.eventId}`) },
  "GET /api/v1/actions/{promise}": { scope: "read", send: get((s) => `/api/v1/actions/${s.waitingSale()}`) },
  "POST /api/v1/actions/{promise}/cancel": { scope: "full", send: (api, s) => api.post(`/api/v1/actions/${s.waitingSale()}/cancel`, undefined) },
  "GET /api/v1/chain": { scope: "read", send: get(() => "/api/v1/chain") },
  "GET /api/v1/callbacks": { scope: "read", send: get(() => "/api/v1/callbacks") },
  "POST /api/v1/callbacks/redeliver": { scope: "full", send: post("/api/v1/callbacks/redeliver", () => ({ status: "pending" })) },
  "GET /api/v1/callbacks/{callbackId}": { scope: "read", send: get((s) => `/api/v1/callbacks/${s.callbackId}`) },
  "GET /api/v1/usage": { scope: "read", send: get(() => "/api/v1/usage?from=2026-01-01&to=2026-01-31&groupBy=event") },
  "POST /api/v1/callbacks/{callbackId}/redeliver": { scope: "full", send: (api, s) => api.post(`/api/v1/callbacks/${s.callbackId}/redeliver`, undefined) },
  "POST /api/v1/webhooks": { scope: "full", status: 201, send: post("/api/v1/webhooks", () => ({ url: "https://hooks.example.com/registry" })) },
  "GET /api/v1/webhooks": { scope: "read", send: get(() => "/api/v1/webhooks") },
  "GET /api/v1/webhooks/{webhookId}": { scope: "read", send: get((s) => `/api/v1/webhooks/${s.webhookId}`) },
  "PATCH /api/v1/webhooks/{webhookId}": { scope: "full", send: (api, s) => api.patch(`/api/v1/webhooks/${s.webhookId}`, { description: id("renamed") }) },
  "DELETE /api/v1/webhooks/{webhookId}": { scope: "full", status: 204, send: (api, s) => api.delete(`/api/v1/webhooks/${s.spareWebhook()}`) },
  "POST /api/v1/webhooks/{webhookId}/test": { scope: "full", send: (api, s) => api.post(`/api/v1/webhooks/${s.webhookId}/test`, undefined) },
  "POST /api/v1/holder-proofs/challenge": {
    scope: "read",
    status: 503,
    writes: false,
    send: post("/api/v1/holder-proofs/challenge", (s) => ({ eventId: s.eventId })),
  },
  "POST /api/v1/holder-proofs/verify": { scope: "read", writes: false, send: post("/api/v1/holder-proofs/verify", () => UNKNOWN_PROOF) },
};

/** A well-formed proof of a nonce nobody issued: verified as unknown_nonce, with no chain. */
const UNKNOWN_PROOF = {
  message: {
    types: {
      TokenHolderProof: [
        { name: "tokenId", type: "uint256" },
        { name: "nonce", type: "bytes32" },
        { name: "expiry", type: "uint64" },
      ],
    },
    primaryType: "TokenHolderProof",
    domain: { name: "Ticket Registry holder proof", version: "1", chainId: 80002, verifyingContract: "0x5FbDB2315678afecb367f032d93F642f64180aa3" },
    message: { tokenId: "18446744073709551617", nonce: "0x" + "42".repeat(32), expiry: 4_102_444_800 },
  },
  signature: "0x" + "00".repeat(65),
};

/** Every /stream action, with the scope it needs and data it is accepted with. */
const STREAM_ACTIONS: Record<StreamActionName, { scope: KeyScope; data: (subjects: Subjects) => Record<string, unknown> }> = {
  newEvent: { scope: "full", data: () => newEventData(id("ev")) },
  updateEvent: { scope: "full", data: (s) => ({ eventId: s.eventId, imageUrl: "https://images.example.com/poster.png" }) },
  soldTicket: { scope: "full", data: (s) => ({ eventId: s.eventId, ticketId: id("t"), price: "10.00" }) },
  updateTicket: { scope: "full", data: (s) => ({ ticketId: s.soldTicket(), uri: "ipfs://bafybeigdyrzt5sfp7udm7hu76uh7y26nf3efuylqabf3oclgtqy55fbzdi" }) },
  resoldTicket: { scope: "full", data: (s) => ({ ticketId: s.soldTicket(), price: "12.00" }) },
  scannedTicket: { scope: "scan", data: (s) => ({ ticketId: s.soldTicket() }) },
  checkedInTicket: { scope: "scan", data: (s) => ({ ticketId: s.soldTicket() }) },
  claimedTicket: { scope: "full", data: (s) => ({ ticketId: s.checkedInTicket(), to: WALLET }) },
  invalidatedTicket: { scope: "full", data: (s) => ({ ticketId: s.soldTicket() }) },
  cancelledEvent: { scope: "full", data: (s) => ({ eventId: s.cancellableEvent() }) },
};

/** Opens the live status stream and closes it once its answer began: the status and, for an error, its body. */
async function openEventStream(api: ApiClient, path: string): Promise<ApiAnswer> {
  const controller = new AbortController();
  const response = await fetch(testApp.baseUrl + path, { headers: { "x-api-key": keyOf(api) }, signal: controller.signal });
  const body: unknown = response.headers.get("content-type")?.startsWith("application/json") ? await response.json() : undefined;
  controller.abort();
  return { status: response.status, headers: response.headers, body };
}

let testApp: TestApp;
let subjects: Subjects;
const keys = {} as Record<KeyScope, { api: ApiClient; key: string }>;
const keyOf = (api: ApiClient) => Object.values(keys).find((entry) => entry.api === api)!.key;

beforeAll(async () => {
  // localhost may be a webhook's url: the test sends go to a closed port on it, and fail at once.
  testApp = await startTestApp({ CALLBACK_ALLOW_HOSTS: "localhost" });
  const { ticketeerId, key } = await testApp.organization();
  const organizations = testApp.app.get(OrganizationsService);
  for (const scope of KEY_SCOPES) {
    const issued = scope === "full" ? { key } : await organizations.issueKey(ticketeerId, `${scope}-key`, { scope });
    keys[scope] = { key: issued.key, api: apiClient(testApp.baseUrl, issued.key) };
  }
  subjects = await prepareSubjects(keys.full.api, ticketeerId);
});

afterAll(async () => {
  await testApp?.close();
});

/**
 * An event, 100 sold tickets, 10 of them checked in, and one callback (an updateEvent's of its callbackUrl, final at
 * acceptance: nothing of it goes on chain);
 * and events to cancel, a ticket sold in each.
 */
async function prepareSubjects(api: ApiClient, ticketeerId: string): Promise<Subjects> {
  const eventId = id("ev-scopes");
  expect((await api.post("/api/v1/events", eventBody(eventId, ticketeerId))).status).toBe(200);
  const sold = await api.post(
    "/api/v1/sold",
    Array.from({ length: 100 }, () => soldItem(eventId, id("t"))),
  );
  expect(sold.body.every((item: { status: string }) => item.status === "success")).toBe(true);
  const sales = (sold.body as { ticketId: string; txPromise: string }[]).map(({ ticketId, txPromise }) => ({ ticketId, txPromise }));
  const checkedIn = sales.splice(0, 10).map((sale) => sale.ticketId);
  expect(
    (
      await api.post(
        "/api/v1/scanned",
        checkedIn.map((ticketId) => ({ ticketId })),
      )
    ).body.every((item: any) => item.status === "success"),
  ).toBe(true);
  const update = await api.post("/stream", [{ action: "updateEvent", data: { eventId, callbackUrl: "https://localhost:1/callbacks" } }]);
  expect(update.body.data[0].status).toBe("success");
  const callbacks = await api.get("/api/v1/callbacks");
  expect(callbacks.body).toHaveLength(1);
  const take =
    <T>(pool: T[], what: string) =>
    () =>
      pool.pop() ?? expect.fail(`the fixture ran out of ${what}`);
  const waitingSales = sales.splice(0, 20).map((sale) => sale.txPromise);
  const cancellable = Array.from({ length: 8 }, () => id("ev-cancel"));
  for (const cancellableId of cancellable) {
    expect((await api.post("/api/v1/events", eventBody(cancellableId, ticketeerId))).status).toBe(200);
    expect((await api.post("/api/v1/sold", [soldItem(cancellableId, id("t"))])).body[0].status).toBe("success");
  }
  // After the callbacks' count: each endpoint takes a copy of every callback from here on.
  const webhook = async () => (await api.post("/api/v1/webhooks", { url: "https://localhost:1/registry" })).body.webhookId as string;
  const webhookId = await webhook();
  const spareWebhooks = [await webhook(), await webhook(), await webhook()];
  return {
    eventId,
    ticketeerId,
    soldTicket: take(
      sales.map((sale) => sale.ticketId),
      "sold tickets",
    ),
    waitingSale: take(waitingSales, "waiting sales"),
    checkedInTicket: take(checkedIn, "checked-in tickets"),
    cancellableEvent: take(cancellable, "cancellable events"),
    callbackId: callbacks.body[0].callbackId,
    webhookId,
    spareWebhook: take(spareWebhooks, "spare webhooks"),
  };
}

/** Every table's rows but the keys' own (their last use may be recorded): what a request could have applied. */
async function everyRow(): Promise<Record<string, string>> {
  const dataSource = testApp.app.get(DataSource);
  const tables = await dataSource.query<{ table_name: string }[]>(
    `SELECT table_name FROM information_schema.tables
      WHERE table_schema = 'public' AND table_type = 'BASE TABLE' AND table_name NOT IN ('api_keys', 'schema_migrations') ORDER BY table_name`,
  );
  const digests = await Promise.all(
    tables.map(async ({ table_name }) => {
      const [row] = await dataSource.query<{ digest: string }[]>(
        `SELECT md5(coalesce(string_agg(t::text, E'\\n' ORDER BY t::text), '')) AS digest FROM "${table_name}" t`,
      );
      return [table_name, row.digest] as const;
    }),
  );
  return Object.fromEntries(digests);
}

/** Nest's answer to every path no route takes (404 not_found, with a key). */
const NOT_FOUND_FALLBACK = "{/*splat}";

/** The routes the app serves that need a key, as "METHOD /path/{param}", read from Express's router. */
function servedKeyedRoutes(app: INestApplication): string[] {
  const express = app.getHttpAdapter().getInstance() as { router: { stack: { route?: { path: string; methods: Record<string, boolean> } }[] } };
  const keyless = publicRoutes(app);
  const routes = new Set<string>();
  for (const { route } of express.router.stack) {
    // Swagger UI's files (keyless, or 403 without a key like any path), and the 404 every other path gets, are no operations.
    if (!route || DOCS_PATHS.has(route.path) || route.path.startsWith("/docs/") || route.path === NOT_FOUND_FALLBACK) continue;
    for (const method of Object.keys(route.methods).filter((name) => route.methods[name])) {
      if (keyless.some((candidate) => candidate.pattern === route.path && (candidate.methods.has(method) || candidate.methods.has("_all")))) continue;
      routes.add(`${method.toUpperCase()} ${route.path.replace(/:(\w+)/g, "{$1}")}`);
    }
  }
  return [...routes].sort();
}

describe("every route and every /stream action has a decided scope", () => {
  it("lists exactly the routes the app serves with a key: a new one fails here until its scope is decided", () => {
    const decided = Object.keys(ROUTES).sort();
    const served = servedKeyedRoutes(testApp.app);
    expect(
      served.filter((route) => !decided.includes(route)),
      "served routes with no decided scope in ROUTES",
    ).toEqual([]);
    expect(
      decided.filter((route) => !served.includes(route)),
      "routes in ROUTES the app does not serve",
    ).toEqual([]);
  });

  it("documents each operation's scope on the live document (x-key-scope, the description, the 403's refusals) as decided", async () => {
    const document = (await apiClient(testApp.baseUrl).get("/docs-json")).body as {
      paths: Record<string, Record<string, { security?: object[]; description?: string; responses: Record<string, { description: string }> }>>;
    };
    const documented: Record<string, unknown> = {};
    for (const [path, operations] of Object.entries(document.paths)) {
      for (const [method, operation] of Object.entries(operations)) {
        if (!operation.security) continue;
        const scope = (operation as Record<string, unknown>)["x-key-scope"];
        documented[`${method.toUpperCase()} ${path}`] = scope;
        expect(operation.description, `${method} ${path}`).toContain(`Key scope: ${String(scope)}`);
        expect(operation.responses["403"].description).toContain('{"message":"Forbidden","code":"key_ip"}');
        expect(operation.responses["403"].description.includes('"code":"key_scope"'), `${method} ${path}`).toBe(scope !== "read");
      }
    }
    expect(documented).toEqual(Object.fromEntries(Object.entries(ROUTES).map(([route, { scope }]) => [route, scope])));
  });

  it("the live Swagger page shows the extensions, so each operation's x-key-scope is on it", async () => {
    const init = await fetch(`${testApp.baseUrl}/docs/swagger-ui-init.js`);
    expect(await init.text()).toMatch(/"showExtensions":\s*true/);
  });

  it("lists exactly the /stream actions the service takes: a new one fails here until its scope is decided", () => {
    expect(Object.keys(STREAM_ACTIONS).sort()).toEqual(Object.keys(KIND_OF_STREAM_ACTION).sort());
  });
});

describe.each(Object.entries(ROUTES))("%s", (route, { scope: needed, send, status = 200, writes = !route.startsWith("GET ") }) => {
  const outside = KEY_SCOPES.filter((scope) => !scopeCovers(scope, needed));
  const inside = KEY_SCOPES.filter((scope) => scopeCovers(scope, needed));

  it.runIf(outside.length > 0).each(outside)(`refuses a %s key: 403 key_scope, nothing applied (it needs ${needed})`, async (scope) => {
    const before = await everyRow();

    const answer = await send(keys[scope].api, subjects);

    expect(answer.status).toBe(403);
    expect(answer.body).toStrictEqual(FORBIDDEN_SCOPE);
    expect(await everyRow()).toEqual(before);
  });

  it.each(inside)("answers a %s key as the route does", async (scope) => {
    const before = await everyRow();

    const answer = await send(keys[scope].api, subjects);

    expect(answer.status, JSON.stringify(answer.body)).toBe(status);
    if (writes) expect(await everyRow(), "an accepted write changed nothing: the row check could not see one").not.toEqual(before);
  });
});

describe("a /stream is judged by every action it holds", () => {
  const actions = Object.entries(STREAM_ACTIONS).map(([action, { scope, data }]) => [action, scope, data] as const);
  it.each(actions)("%s needs a %s key", async (action, needed, data) => {
    for (const scope of KEY_SCOPES) {
      const before = await everyRow();

      const answer = await keys[scope].api.post("/stream", [{ action, data: data(subjects) }]);

      if (scopeCovers(scope, needed)) {
        expect(answer.status, `${scope} key`).toBe(200);
        expect(answer.body.data[0], `${scope} key`).toMatchObject({ status: "success", action });
      } else {
        expect({ status: answer.status, body: answer.body }, `${scope} key`).toStrictEqual({ status: 403, body: FORBIDDEN_SCOPE });
        expect(await everyRow(), `${scope} key`).toEqual(before);
      }
    }
  });

  it("refuses a scan key's /stream whole when one action is outside its scope: its check-ins are not applied either", async () => {
    const [first, second] = [subjects.soldTicket(), subjects.soldTicket()];
    const mixed = [
      { action: "scannedTicket", data: { ticketId: first } },
      { action: "invalidatedTicket", data: { ticketId: subjects.soldTicket() } },
      { action: "checkedInTicket", data: { ticketId: second } },
    ];
    const before = await everyRow();

    for (const path of ["/stream", "/api/v1/stream"]) {
      const answer = await keys.scan.api.post(path, mixed);
      expect({ status: answer.status, body: answer.body }).toStrictEqual({ status: 403, body: FORBIDDEN_SCOPE });
    }

    expect(await everyRow()).toEqual(before);
    for (const ticketId of [first, second]) expect((await keys.read.api.get(`/api/v1/tickets/${ticketId}`)).body).toMatchObject({ checkedIn: false });
    const accepted = await keys.full.api.post("/stream", mixed);
    expect(accepted.body.data.map((item: { status: string }) => item.status)).toEqual(["success", "success", "success"]);
  });

  it("refuses a scan key's entry that names no check-in (malformed, unknown or missing action) as outside its scope", async () => {
    const ticketId = subjects.soldTicket();
    for (const entry of [{ action: "deleteTicket", data: { ticketId } }, { data: { ticketId } }, "scannedTicket", null]) {
      const answer = await keys.scan.api.post("/stream", [{ action: "scannedTicket", data: { ticketId } }, entry]);
      expect({ status: answer.status, body: answer.body }, JSON.stringify(entry)).toStrictEqual({ status: 403, body: FORBIDDEN_SCOPE });
    }
    expect((await keys.read.api.get(`/api/v1/tickets/${ticketId}`)).body).toMatchObject({ checkedIn: false });
  });

  it("answers a scan key's /stream that is no list, or too long, as the endpoint does for any key", async () => {
    const notAList = await keys.scan.api.post("/stream", { action: "scannedTicket", data: { ticketId: "t" } });
    expect(notAList.status).toBe(400);
    expect(notAList.body.error).toMatchObject({ code: "invalid_body" });
    const tooMany = await keys.scan.api.post(
      "/stream",
      Array.from({ length: 5001 }, () => ({ action: "scannedTicket", data: { ticketId: "t" } })),
    );
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.error).toMatchObject({ code: "too_many_items" });
  });
});
