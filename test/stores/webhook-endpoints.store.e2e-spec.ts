import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";

import { type AttemptResult, CallbackOutboxStore, type ClaimedCallback, type ReceiverShares } from "../../src/callbacks/callback-outbox.store";
import { CallbacksStore } from "../../src/callbacks/callbacks.store";
import { callbackExhaustedNotice, type Notice } from "../../src/callbacks/webhooks/notices";
import { type HealthReport, ReceiverHealthStore } from "../../src/callbacks/webhooks/receiver-health.store";
import { WebhookEndpointsStore } from "../../src/callbacks/webhooks/webhook-endpoints.store";
import { uuidv7 } from "../../src/common/uuid-v7";
import { ActionRecorder, type ActionEntry } from "../../src/ledger/action-recorder";
import { RECEIVER_DISABLED_ERROR } from "../../src/ledger/outbox";
import { openStoreDatabase, type StoreDatabase } from "../support/store-database";

/**
 * The webhook endpoints' SQL against PostgreSQL: the endpoints themselves (WebhookEndpointsStore),
 * the callbacks' fan-out to them (the ledger's insertCallbacks), the claim, log and redelivery of
 * each copy (CallbackOutboxStore, CallbacksStore) and the receivers' health (ReceiverHealthStore).
 */

const LEASE_MS = 60_000;
const ANY_SHARE: ReceiverShares = { full: [], inFlight: [], idleRoom: 1_000 };
const HOUR = 3_600_000;

let db: StoreDatabase;
let endpoints: WebhookEndpointsStore;
let outbox: CallbackOutboxStore;
let log: CallbacksStore;
let health: ReceiverHealthStore;
let organizationId: string;
let otherOrganizationId: string;

beforeAll(async () => {
  db = await openStoreDatabase();
  endpoints = new WebhookEndpointsStore(db.dataSource);
  outbox = new CallbackOutboxStore(db.dataSource);
  log = new CallbacksStore(db.dataSource);
  health = new ReceiverHealthStore(db.dataSource);
  organizationId = await db.organization("webhooks-a");
  otherOrganizationId = await db.organization("webhooks-b");
});

afterAll(async () => {
  await outbox?.closeClaims();
  await db?.close();
});

// Every claim reads the whole outbox, and the cap counts every endpoint: each test starts from none.
beforeEach(async () => {
  await db.dataSource.query(`DELETE FROM callbacks`);
  await db.dataSource.query(`DELETE FROM webhook_endpoints`);
});

async function endpoint(url: string, actions: string[] | null = null, owner = organizationId): Promise<string> {
  const created = await endpoints.create(owner, { url, actions, description: "" }, 100);
  return created!.id;
}

async function newEvent(callbackUrl = "https://events.example.com/hooks", owner = organizationId): Promise<string> {
  const eventRef = uuidv7();
  await db.dataSource.query(`INSERT INTO events (id, organization_id, event_id, currency, callback_url) VALUES ($1, $2, $3, 'EUR', $4)`, [
    eventRef,
    owner,
    `event-${eventRef.slice(-12)}`,
    callbackUrl,
  ]);
  return eventRef;
}

async function newTicket(eventRef: string): Promise<string> {
  const ticketRef = uuidv7();
  await db.dataSource.query(
    `INSERT INTO tickets (id, organization_id, event_ref, ticket_id, serial, token_id, price, order_time)
     VALUES ($1, $2, $3, $4, 1, (random() * 1e15)::numeric(39, 0), '10.00', 0)`,
    [ticketRef, organizationId, eventRef, `ticket-${ticketRef.slice(-12)}`],
  );
  return ticketRef;
}

/** Records actions with nothing on chain, as an acceptance does: their callbacks are written at once. */
async function record(entries: Omit<ActionEntry, "eventIndex">[], owner = organizationId): Promise<string[]> {
  return db.dataSource.transaction(async (manager) => {
    const recorder = new ActionRecorder(manager, owner, "request-9");
    const ids = entries.map((entry) => recorder.record({ ...entry, eventIndex: 1n }));
    await recorder.flush();
    return ids;
  });
}

const updateEvent = (eventRef: string): Omit<ActionEntry, "eventIndex"> => ({
  kind: "updateEvent",
  requestedAs: "updateEvent",
  eventRef,
  ticketRef: null,
  onChain: null,
});
const updateTicket = (eventRef: string, ticketRef: string): Omit<ActionEntry, "eventIndex"> => ({
  kind: "updateTicket",
  requestedAs: "updateTicket",
  eventRef,
  ticketRef,
  onChain: null,
});

interface CopyRow {
  id: string;
  webhook_ref: string | null;
  receiver: string;
  status: string;
  last_error: string | null;
  payload: Record<string, unknown>;
}

async function copiesOf(actionId: string): Promise<CopyRow[]> {
  return db.dataSource.query<CopyRow[]>(
    `SELECT id, webhook_ref, receiver, status, last_error, payload FROM callbacks WHERE action_id = $1 ORDER BY webhook_ref NULLS FIRST`,
    [actionId],
  );
}

async function notices(action: string): Promise<CopyRow[]> {
  return db.dataSource.query<CopyRow[]>(
    `SELECT id, webhook_ref, receiver, status, last_error, payload FROM callbacks WHERE action_id IS NULL AND payload->>'action' = $1 ORDER BY webhook_ref`,
    [action],
  );
}

function result(callback: ClaimedCallback, status: AttemptResult["status"], statusCode: number | null = 500): AttemptResult {
  return { callbackId: callback.id, startedAt: new Date(), durationMs: 5, url: callback.callbackUrl, statusCode, error: null, status, nextAttemptAt: null };
}

/** A batch's report at `now` (the real time unless given), with WEBHOOK_DISABLE_AFTER_HOURS at 120. */
function report(overrides: Partial<HealthReport>): HealthReport {
  const now = overrides.now ?? new Date();
  return {
    now,
    cutoff: new Date(now.getTime() - 120 * HOUR),
    delivered: { webhooks: [], events: [] },
    failed: { webhooks: [], events: [] },
    pending: [],
    ...overrides,
  };
}

describe("the fan-out: one copy of each callback per receiver that takes it", () => {
  it("writes the callbackUrl's copy and one per endpoint whose actions take it, in the one insert; a disabled endpoint's copy is kept, failed", async () => {
    const all = await endpoint("https://all.example.com/hooks");
    const scansOnly = await endpoint("https://scans.example.com/hooks", ["scanned"]);
    const updates = await endpoint("https://updates.example.com/hooks", ["updateEvent", "updateTicket"]);
    const paused = await endpoint("https://paused.example.com/hooks");
    await endpoints.update(organizationId, paused, { enabled: false }, new Date());
    await endpoint("https://stranger.example.com/hooks", null, otherOrganizationId);
    const eventRef = await newEvent();

    const [actionId] = await record([updateEvent(eventRef)]);

    const copies = await copiesOf(actionId);
    const byReceiver = new Map(copies.map((copy) => [copy.webhook_ref, copy]));
    expect([...byReceiver.keys()].sort()).toEqual([null, all, updates, paused].sort());
    expect(byReceiver.has(scansOnly)).toBe(false);
    expect(byReceiver.get(null)).toMatchObject({ receiver: "https://events.example.com", status: "pending", last_error: null });
    expect(byReceiver.get(all)).toMatchObject({ receiver: "https://all.example.com", status: "pending" });
    expect(byReceiver.get(paused)).toMatchObject({ status: "failed", last_error: RECEIVER_DISABLED_ERROR });
    // Every copy carries the same body; each has an id (its webhook-id) of its own.
    expect(new Set(copies.map((copy) => JSON.stringify(copy.payload))).size).toBe(1);
    expect(new Set(copies.map((copy) => copy.id)).size).toBe(copies.length);
  });

  it("keeps the copy for a disabled callbackUrl as failed, while the endpoints get theirs", async () => {
    const all = await endpoint("https://all.example.com/hooks");
    const eventRef = await newEvent();
    await db.dataSource.query(`UPDATE events SET callback_disabled_at = now() WHERE id = $1`, [eventRef]);

    const [actionId] = await record([updateEvent(eventRef)]);

    const [own, endpointCopy] = await copiesOf(actionId);
    expect(own).toMatchObject({ webhook_ref: null, status: "failed", last_error: RECEIVER_DISABLED_ERROR });
    expect(endpointCopy).toMatchObject({ webhook_ref: all, status: "pending" });
  });
});

describe("claims and the log of each copy", () => {
  it("hands out an endpoint's copy with the endpoint's url, its webhookId and its event", async () => {
    const all = await endpoint("https://all.example.com/hooks?token=t");
    const eventRef = await newEvent();
    const [actionId] = await record([updateEvent(eventRef)]);

    const claimed = await outbox.claimDue(10, LEASE_MS, ANY_SHARE);

    expect(claimed).toHaveLength(2);
    const copy = claimed.find((callback) => callback.webhookId === all)!;
    expect(copy).toMatchObject({ actionId, eventRef, requestId: "request-9", callbackUrl: "https://all.example.com/hooks?token=t", attempts: 0 });
    expect(claimed.find((callback) => callback.webhookId === null)).toMatchObject({ callbackUrl: "https://events.example.com/hooks" });
  });

  it("keeps each receiver's order apart: a ticket's next callback waits only for the same receiver's copy of the one before", async () => {
    const all = await endpoint("https://all.example.com/hooks");
    const eventRef = await newEvent();
    const ticketRef = await newTicket(eventRef);
    const [first, second] = await record([updateTicket(eventRef, ticketRef), updateTicket(eventRef, ticketRef)]);

    const firstClaim = await outbox.claimDue(10, LEASE_MS, ANY_SHARE);
    expect(firstClaim.map((callback) => callback.actionId)).toEqual([first, first]);
    await outbox.recordAttempts([
      result(
        firstClaim.find((callback) => callback.webhookId === null)!,
        "delivered",
        204,
      ),
    ]);

    // The callbackUrl's copy of the first was attempted: its copy of the second goes; the endpoint's waits for its own first.
    const secondClaim = await outbox.claimDue(10, LEASE_MS, ANY_SHARE);
    expect(secondClaim.map((callback) => [callback.actionId, callback.webhookId])).toEqual([[second, null]]);
    await outbox.recordAttempts([
      {
        ...result(
          firstClaim.find((callback) => callback.webhookId === all)!,
          "pending",
        ),
        nextAttemptAt: new Date(Date.now() + HOUR),
      },
    ]);
    expect((await outbox.claimDue(10, LEASE_MS, ANY_SHARE)).map((callback) => [callback.actionId, callback.webhookId])).toEqual([[second, all]]);
  });

  it("lists an endpoint's copies by webhookId, notices (no action, no event) among them", async () => {
    const all = await endpoint("https://all.example.com/hooks");
    const other = await endpoint("https://other.example.com/hooks");
    const [actionId] = await record([updateEvent(await newEvent())]);
    await health.apply(report({}), [noticeAbout(other)]);

    const listed = await log.listForOrganization(organizationId, { webhookId: all, limit: 100 });

    expect(listed.map((view) => [view.action, view.webhookId, view.actionPromise])).toEqual([
      ["callback_exhausted", all, null],
      ["updateEvent", all, actionId],
    ]);
    expect(listed[0]).toMatchObject({ eventId: null, ticketId: null, status: "pending" });
    expect(await log.listForOrganization(otherOrganizationId, { webhookId: all, limit: 100 })).toEqual([]);
  });

  it("records no attempt of a callback whose endpoint was deleted meanwhile, and the rest of the batch as ever", async () => {
    const doomed = await endpoint("https://doomed.example.com/hooks");
    const [actionId] = await record([updateEvent(await newEvent())]);
    const claimed = await outbox.claimDue(10, LEASE_MS, ANY_SHARE);
    expect(await endpoints.delete(organizationId, doomed)).toBe(true);

    await outbox.recordAttempts(claimed.map((callback) => result(callback, "delivered", 204)));

    const [own] = await copiesOf(actionId);
    expect(await copiesOf(actionId)).toHaveLength(1);
    expect(own).toMatchObject({ webhook_ref: null, status: "delivered" });
    const [{ count }] = await db.dataSource.query<{ count: number }[]>(`SELECT count(*)::int AS count FROM callback_attempts WHERE callback_id = $1`, [own.id]);
    expect(count).toBe(1);
  });
});

function noticeAbout(webhookId: string | null): Notice {
  const callback = {
    id: uuidv7(),
    actionId: uuidv7(),
    organizationId,
    webhookId,
    eventRef: null,
    payload: { action: "sold", eventId: "e", ticketId: "t" },
    attempts: 11,
  };
  return callbackExhaustedNotice(callback as unknown as ClaimedCallback, { statusCode: 500, error: null }, new Date());
}

describe("ReceiverHealthStore", () => {
  it("marks a receiver failing at its first failed attempt, and forgets it at a delivered one", async () => {
    const hooks = await endpoint("https://hooks.example.com/h");
    const eventRef = await newEvent();
    const first = new Date("2026-03-01T10:00:00Z");

    await health.apply(report({ now: first, failed: { webhooks: [hooks], events: [eventRef] } }), []);
    await health.apply(report({ now: new Date("2026-03-01T11:00:00Z"), failed: { webhooks: [hooks], events: [eventRef] } }), []);

    expect((await endpoints.findForOrganization(organizationId, hooks))!.failingSince).toEqual(first);
    const [event] = await db.dataSource.query<{ callback_failing_since: Date }[]>(`SELECT callback_failing_since FROM events WHERE id = $1`, [eventRef]);
    expect(event.callback_failing_since).toEqual(first);

    await health.apply(report({ delivered: { webhooks: [hooks], events: [eventRef] } }), []);
    expect((await endpoints.findForOrganization(organizationId, hooks))!.failingSince).toBeNull();
    const [cleared] = await db.dataSource.query<{ callback_failing_since: Date | null }[]>(`SELECT callback_failing_since FROM events WHERE id = $1`, [
      eventRef,
    ]);
    expect(cleared.callback_failing_since).toBeNull();
  });

  it("disables an endpoint failing since before the cutoff at its next failed attempt: its pending callbacks are kept as failed, the others are told", async () => {
    const failing = await endpoint("https://failing.example.com/hooks?token=secret");
    const told = await endpoint("https://told.example.com/hooks", ["endpoint_disabled"]);
    const notTold = await endpoint("https://not-told.example.com/hooks", ["sold"]);
    const stranger = await endpoint("https://stranger.example.com/hooks", null, otherOrganizationId);
    const [actionId] = await record([updateEvent(await newEvent())]);
    const since = new Date("2026-03-01T10:00:00Z");
    await health.apply(report({ now: since, failed: { webhooks: [failing], events: [] } }), []);
    const now = new Date(since.getTime() + 121 * HOUR);

    // Not yet: failing for 119 hours.
    const early = new Date(since.getTime() + 119 * HOUR);
    expect(await health.apply(report({ now: early, failed: { webhooks: [failing], events: [] } }), [])).toEqual([]);
    const disabled = await health.apply(report({ now, failed: { webhooks: [failing], events: [] } }), []);

    expect(disabled).toEqual([
      {
        organizationId,
        webhookId: failing,
        eventRef: null,
        eventId: null,
        url: "https://failing.example.com/hooks?token=secret",
        failingSince: since,
        disabledAt: now,
      },
    ]);
    expect(await endpoints.findForOrganization(organizationId, failing)).toMatchObject({ enabled: false, disabledReason: "failing", disabledAt: now });
    const copy = (await copiesOf(actionId)).find((candidate) => candidate.webhook_ref === failing)!;
    expect(copy).toMatchObject({ status: "failed", last_error: RECEIVER_DISABLED_ERROR });
    const sent = await notices("endpoint_disabled");
    expect(sent.map((notice) => notice.webhook_ref)).toEqual([told]);
    expect(sent[0].payload).toEqual({
      action: "endpoint_disabled",
      transactionType: "notice",
      webhookId: failing,
      eventId: null,
      receiver: "https://failing.example.com",
      failingSince: since.toISOString(),
      disabledAt: now.toISOString(),
    });
    expect(sent.some((notice) => [notTold, stranger].includes(notice.webhook_ref!))).toBe(false);
    // Disabled once: a later failed attempt (one in flight meanwhile) neither disables nor tells again.
    expect(await health.apply(report({ now, failed: { webhooks: [failing], events: [] } }), [])).toEqual([]);
    expect(await notices("endpoint_disabled")).toHaveLength(1);
  });

  it("disables an event's callbackUrl the same way, and stops the batch's pending callbacks of a receiver disabled meanwhile", async () => {
    const told = await endpoint("https://told.example.com/hooks");
    const eventRef = await newEvent();
    const [actionId] = await record([updateEvent(eventRef)]);
    const since = new Date("2026-03-01T10:00:00Z");
    await health.apply(report({ now: since, failed: { webhooks: [], events: [eventRef] } }), []);
    const now = new Date(since.getTime() + 120 * HOUR);

    const [disabled] = await health.apply(report({ now, failed: { webhooks: [], events: [eventRef] } }), []);

    expect(disabled).toMatchObject({ webhookId: null, eventRef, eventId: `event-${eventRef.slice(-12)}`, url: "https://events.example.com/hooks" });
    expect((await copiesOf(actionId)).find((copy) => copy.webhook_ref === null)).toMatchObject({ status: "failed", last_error: RECEIVER_DISABLED_ERROR });
    expect((await notices("endpoint_disabled")).map((notice) => [notice.webhook_ref, notice.payload.eventId])).toEqual([[told, disabled.eventId]]);

    // A copy written pending beside the disabling (its attempt was under way) is stopped when its result comes.
    const [late] = await record([updateEvent(eventRef)]);
    const lateCopy = (await copiesOf(late)).find((copy) => copy.webhook_ref === null)!;
    await db.dataSource.query(`UPDATE callbacks SET status = 'pending', last_error = NULL WHERE id = $1`, [lateCopy.id]);
    await health.apply(report({ failed: { webhooks: [], events: [eventRef] }, pending: [lateCopy.id] }), []);
    expect((await copiesOf(late)).find((copy) => copy.webhook_ref === null)).toMatchObject({ status: "failed", last_error: RECEIVER_DISABLED_ERROR });
  });

  it("keeps a callback stopped by its receiver's disabling while its attempt was on its way: a failed attempt does not make it pending again", async () => {
    const paused = await endpoint("https://paused.example.com/hooks");
    const delivering = await endpoint("https://delivering.example.com/hooks");
    const [actionId] = await record([updateEvent(await newEvent())]);
    const claimed = await outbox.claimDue(10, LEASE_MS, ANY_SHARE);
    await endpoints.update(organizationId, paused, { enabled: false }, new Date());
    await endpoints.update(organizationId, delivering, { enabled: false }, new Date());

    await outbox.recordAttempts(
      claimed
        .filter((callback) => callback.webhookId !== null)
        .map((callback) =>
          callback.webhookId === paused ? { ...result(callback, "pending"), nextAttemptAt: new Date() } : result(callback, "delivered", 204),
        ),
    );

    const copies = await copiesOf(actionId);
    expect(copies.find((copy) => copy.webhook_ref === paused)).toMatchObject({ status: "failed", last_error: RECEIVER_DISABLED_ERROR });
    expect(copies.find((copy) => copy.webhook_ref === delivering)).toMatchObject({ status: "delivered" });
  });

  it("sends each notice to the organization's endpoints that take it but the one it is about; a disabled one keeps its copy, failed", async () => {
    const about = await endpoint("https://about.example.com/hooks");
    const takes = await endpoint("https://takes.example.com/hooks", ["callback_exhausted"]);
    const paused = await endpoint("https://paused.example.com/hooks");
    await endpoints.update(organizationId, paused, { enabled: false }, new Date());
    await endpoint("https://ignores.example.com/hooks", ["endpoint_disabled"]);

    await health.apply(report({}), [noticeAbout(about), noticeAbout(null)]);

    const sent = await notices("callback_exhausted");
    // About `about`: every other endpoint that takes it; about the callbackUrl (null): `about` too.
    expect(sent.map((notice) => `${notice.webhook_ref} ${notice.status}`).sort()).toEqual(
      [`${takes} pending`, `${paused} failed`, `${about} pending`, `${takes} pending`, `${paused} failed`].sort(),
    );
  });
});

describe("redelivery and a disabled receiver", () => {
  it("refuses to redeliver a callback of a disabled receiver, counts them apart in bulk, and redelivers once the endpoint is enabled again", async () => {
    const paused = await endpoint("https://paused.example.com/old");
    const eventRef = await newEvent();
    const [actionId] = await record([updateEvent(eventRef)]);
    await endpoints.update(organizationId, paused, { enabled: false }, new Date());
    const copy = (await copiesOf(actionId)).find((candidate) => candidate.webhook_ref === paused)!;

    expect(await outbox.scheduleRedelivery(organizationId, copy.id)).toBe("receiver_disabled");
    expect(await outbox.scheduleRedeliveries(organizationId, { eventId: null, webhookId: paused, statuses: ["failed"], since: null })).toEqual({
      queued: 0,
      inFlight: 0,
      receiverDisabled: 1,
    });
    expect(await outbox.scheduleRedelivery(otherOrganizationId, copy.id)).toBe("not_found");

    await endpoints.update(organizationId, paused, { enabled: true, url: "https://resumed.example.com/new" }, new Date());
    expect(await outbox.scheduleRedeliveries(organizationId, { eventId: null, webhookId: paused, statuses: ["failed"], since: null })).toEqual({
      queued: 1,
      inFlight: 0,
      receiverDisabled: 0,
    });
    expect((await copiesOf(actionId)).find((candidate) => candidate.webhook_ref === paused)).toMatchObject({
      status: "pending",
      receiver: "https://resumed.example.com",
    });
    const claimed = await outbox.claimDue(10, LEASE_MS, ANY_SHARE);
    expect(claimed.find((callback) => callback.webhookId === paused)).toMatchObject({ callbackUrl: "https://resumed.example.com/new" });
  });

  it("refuses a disabled callbackUrl's callback until an event update clears it", async () => {
    const eventRef = await newEvent();
    const [actionId] = await record([updateEvent(eventRef)]);
    await db.dataSource.query(`UPDATE events SET callback_disabled_at = now() WHERE id = $1`, [eventRef]);
    const [own] = await copiesOf(actionId);

    expect(await outbox.scheduleRedelivery(organizationId, own.id)).toBe("receiver_disabled");
    await db.dataSource.query(`UPDATE events SET callback_disabled_at = NULL WHERE id = $1`, [eventRef]);
    expect(await outbox.scheduleRedelivery(organizationId, own.id)).toBe("queued");
  });
});

describe("WebhookEndpointsStore", () => {
  it("creates no more endpoints than the cap, even when asked at the same time", async () => {
    const created = await Promise.all(
      Array.from({ length: 8 }, (_, index) => endpoints.create(organizationId, { url: `https://h${index}.example.com/`, actions: null, description: "" }, 5)),
    );

    expect(created.filter((made) => made !== null)).toHaveLength(5);
    expect(await endpoints.listForOrganization(organizationId)).toHaveLength(5);
    expect(await endpoints.create(otherOrganizationId, { url: "https://other.example.com/", actions: ["sold"], description: "d" }, 5)).toMatchObject({
      actions: ["sold"],
      description: "d",
      enabled: true,
    });
  });

  it("takes pending callbacks to a new url and forgets the old one's failures; disabling stops them; enabling forgets the failures", async () => {
    const hooks = await endpoint("https://old.example.com/hooks");
    const [actionId] = await record([updateEvent(await newEvent())]);
    await db.dataSource.query(`UPDATE webhook_endpoints SET failing_since = now() - interval '1 hour' WHERE id = $1`, [hooks]);

    const moved = await endpoints.update(organizationId, hooks, { url: "https://new.example.com/hooks", description: "moved" }, new Date());

    expect(moved).toMatchObject({ url: "https://new.example.com/hooks", description: "moved", failingSince: null, actions: null });
    expect((await copiesOf(actionId)).find((copy) => copy.webhook_ref === hooks)).toMatchObject({ receiver: "https://new.example.com", status: "pending" });

    const at = new Date("2026-03-02T08:00:00Z");
    expect(await endpoints.update(organizationId, hooks, { enabled: false, actions: ["sold"] }, at)).toMatchObject({
      enabled: false,
      disabledReason: "request",
      disabledAt: at,
      actions: ["sold"],
    });
    expect((await copiesOf(actionId)).find((copy) => copy.webhook_ref === hooks)).toMatchObject({ status: "failed", last_error: RECEIVER_DISABLED_ERROR });

    await db.dataSource.query(`UPDATE webhook_endpoints SET failing_since = now() WHERE id = $1`, [hooks]);
    expect(await endpoints.update(organizationId, hooks, { enabled: true, actions: null }, new Date())).toMatchObject({
      enabled: true,
      disabledReason: null,
      disabledAt: null,
      failingSince: null,
      actions: null,
    });
  });

  it("answers null for another organization's endpoint and an id that is none, and deletes an endpoint with its callbacks and log", async () => {
    const hooks = await endpoint("https://hooks.example.com/");
    expect(await endpoints.findForOrganization(otherOrganizationId, hooks)).toBeNull();
    expect(await endpoints.findForOrganization(organizationId, "not-a-uuid")).toBeNull();
    expect(await endpoints.update(otherOrganizationId, hooks, { enabled: false }, new Date())).toBeNull();
    expect(await endpoints.delete(otherOrganizationId, hooks)).toBe(false);
    await endpoints.recordTest({
      callbackId: uuidv7(),
      organizationId,
      webhookId: hooks,
      url: "https://hooks.example.com/",
      payload: { action: "test" },
      startedAt: new Date(),
      durationMs: 12,
      statusCode: 503,
      error: null,
      delivered: false,
    });
    const [test] = await log.listForOrganization(organizationId, { webhookId: hooks, limit: 10 });
    expect(test).toMatchObject({ action: "test", status: "failed", attempts: 1, lastStatusCode: 503, attemptLog: [{ statusCode: 503, durationMs: 12 }] });

    expect(await endpoints.delete(organizationId, hooks)).toBe(true);
    const [left] = await db.dataSource.query<{ callbacks: number; attempts: number }[]>(
      `SELECT (SELECT count(*) FROM callbacks WHERE webhook_ref = $1)::int AS callbacks, (SELECT count(*) FROM callback_attempts WHERE callback_id = $2)::int AS attempts`,
      [hooks, test.callbackId],
    );
    expect(left).toEqual({ callbacks: 0, attempts: 0 });
  });
});
