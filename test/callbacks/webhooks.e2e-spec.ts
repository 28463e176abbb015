import { describe, expect, it } from "vitest";

import { MAX_WEBHOOKS_PER_ORGANIZATION } from "../../src/callbacks/webhooks/webhook-actions";
import { RECEIVER_DISABLED_ERROR } from "../../src/ledger/outbox";
import { apiClient } from "../support/api-client";
import {
  callbackOf,
  callbacksOfWebhook,
  createWebhook,
  eventually,
  eventWithTickets,
  settled,
  stream,
  updateTickets,
  verifyCallback,
  webhookWhen,
} from "../support/callbacks-e2e";
import { useChainApp } from "../support/chain-app";
import { scrapeMetrics, total } from "../support/metrics-scrape";
import { TestClock } from "../support/test-clock";
import type { ReceivedRequest } from "../support/https-receiver";

/**
 * Webhook endpoints against the real app, PostgreSQL, Redis and a Hardhat chain, delivering to a
 * local HTTPS receiver (retry schedule shrunk a hundredfold, three attempts per callback). The app's
 * clock is the test's: a receiver failing for WEBHOOK_DISABLE_AFTER_HOURS (the default, 120) is
 * reached by moving it 121 hours on, not by waiting.
 */

const clock = new TestClock();
const chainApp = useChainApp({
  receiver: true,
  env: { CALLBACK_MAX_ATTEMPTS: "3", CALLBACK_TIMEOUT_MS: "2000", CALLBACK_LEASE_MS: "5000" },
  app: { clock },
});

const settle = (ms = 1_000) => new Promise((resolve) => setTimeout(resolve, ms));
const bodyOf = (request: ReceivedRequest) => JSON.parse(request.body);
const forEvent = (requests: ReceivedRequest[], eventId: string) => requests.filter((request) => bodyOf(request).eventId === eventId);
const actionsOf = (requests: ReceivedRequest[]) => requests.map((request) => bodyOf(request).action);
const redeliver = (body: unknown) => chainApp.api.post("/api/v1/callbacks/redeliver", body);

/** The answer's status and error body, for the refusals. */
async function refusal(answer: Promise<{ status: number; body: any }>): Promise<{ status: number; code: string; field?: string }> {
  const { status, body } = await answer;
  return { status, code: body?.error?.code, ...(body?.error?.field === undefined ? {} : { field: body.error.field }) };
}

describe("managing endpoints", () => {
  it("creates, lists, reads, changes and deletes an endpoint", async () => {
    const { api, receiver } = chainApp;
    const created = await api.post("/api/v1/webhooks", { url: receiver.url("/managed"), actions: ["scanned", "transferred"], description: "doors" });

    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      webhookId: expect.any(String),
      url: receiver.url("/managed"),
      actions: ["scanned", "transferred"],
      description: "doors",
      enabled: true,
      disabledReason: null,
      disabledAt: null,
      failingSince: null,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    const { webhookId } = created.body;
    expect((await api.get("/api/v1/webhooks")).body.map((view: { webhookId: string }) => view.webhookId)).toContain(webhookId);
    expect((await api.get(`/api/v1/webhooks/${webhookId}`)).body).toEqual(created.body);

    const all = await api.patch(`/api/v1/webhooks/${webhookId}`, { actions: null, description: "everything" });
    expect(all.body).toMatchObject({ actions: null, description: "everything", enabled: true });
    const paused = await api.patch(`/api/v1/webhooks/${webhookId}`, { enabled: false });
    expect(paused.body).toMatchObject({ enabled: false, disabledReason: "request", disabledAt: expect.any(String) });
    expect((await api.patch(`/api/v1/webhooks/${webhookId}`, { enabled: true })).body).toMatchObject({ enabled: true, disabledReason: null, disabledAt: null });

    const deleted = await api.delete(`/api/v1/webhooks/${webhookId}`);
    expect(deleted.status).toBe(204);
    expect(await refusal(api.get(`/api/v1/webhooks/${webhookId}`))).toEqual({ status: 404, code: "webhook_not_found", field: "webhookId" });
  });

  it("answers another organization's endpoint, and an id that is none, as unknown: 404 webhook_not_found", async () => {
    const webhookId = await createWebhook(chainApp.api, { url: chainApp.receiver.url("/private") });
    const stranger = apiClient(chainApp.testApp.baseUrl, (await chainApp.testApp.organization()).key);
    const notFound = { status: 404, code: "webhook_not_found", field: "webhookId" };

    for (const id of [webhookId, "not-a-webhook", "00000000-0000-7000-8000-000000000000"]) {
      expect(await refusal(stranger.get(`/api/v1/webhooks/${id}`)), id).toEqual(notFound);
      expect(await refusal(stranger.patch(`/api/v1/webhooks/${id}`, { enabled: false })), id).toEqual(notFound);
      expect(await refusal(stranger.post(`/api/v1/webhooks/${id}/test`, undefined)), id).toEqual(notFound);
      expect(await refusal(stranger.delete(`/api/v1/webhooks/${id}`)), id).toEqual(notFound);
    }
    expect((await stranger.get("/api/v1/webhooks")).body).toEqual([]);
    expect((await chainApp.api.get(`/api/v1/webhooks/${webhookId}`)).body).toMatchObject({ enabled: true });
    expect(chainApp.receiver.requests("/private")).toEqual([]);
    await chainApp.api.delete(`/api/v1/webhooks/${webhookId}`);
  });

  it("refuses bad input with a 400 naming the field: an unknown action, a url callbacks cannot go to, nothing to change", async () => {
    const { api, receiver } = chainApp;
    const create = (body: unknown) => refusal(api.post("/api/v1/webhooks", body));
    const field = (name: string) => ({ status: 400, code: "invalid_field", field: name });

    expect(await create({ url: receiver.url("/x"), actions: ["scanned", "checkin"] })).toEqual(field("actions"));
    expect((await api.post("/api/v1/webhooks", { url: receiver.url("/x"), actions: ["scanned", "checkin"] })).body.error.message).toMatch(
      /^actions\[1\] "checkin" is not a callback action: one of newEvent, /,
    );
    expect(await create({ url: receiver.url("/x"), actions: [] })).toEqual(field("actions"));
    for (const url of [
      "http://hooks.example.com/",
      "https://10.0.0.8/hooks",
      "https://[::ffff:127.0.0.1]/",
      "https://169.254.169.254/",
      "https://a.localhost/",
    ]) {
      expect(await create({ url }), url).toEqual(field("url"));
    }
    expect(await create({ description: "no url" })).toEqual(field("url"));
    expect(await create([{ url: receiver.url("/x") }])).toEqual({ status: 400, code: "invalid_body" });

    const webhookId = await createWebhook(api, { url: receiver.url("/patched") });
    expect(await refusal(api.patch(`/api/v1/webhooks/${webhookId}`, {}))).toEqual({ status: 400, code: "invalid_body" });
    expect(await refusal(api.patch(`/api/v1/webhooks/${webhookId}`, { enabled: "yes" }))).toEqual(field("enabled"));
    expect(await refusal(api.patch(`/api/v1/webhooks/${webhookId}`, { url: "https://192.168.0.1/" }))).toEqual(field("url"));
    expect(await refusal(api.patch(`/api/v1/webhooks/${webhookId}`, { actions: ["sold", "sold"] }))).toEqual(field("actions"));
    expect((await api.get(`/api/v1/webhooks/${webhookId}`)).body).toMatchObject({ url: receiver.url("/patched"), actions: null });
    expect(await refusal(api.get("/api/v1/callbacks?webhookId=nope"))).toEqual(field("webhookId"));
    expect(await refusal(redeliver({ webhookId: 7 }))).toEqual(field("webhookId"));
    await api.delete(`/api/v1/webhooks/${webhookId}`);
  });

  it(`caps an organization's endpoints at ${MAX_WEBHOOKS_PER_ORGANIZATION}: one more answers 409 webhook_limit_reached`, async () => {
    const organization = await chainApp.testApp.organization();
    const api = apiClient(chainApp.testApp.baseUrl, organization.key);
    for (let index = 0; index < MAX_WEBHOOKS_PER_ORGANIZATION; index++) await createWebhook(api, { url: `https://hooks-${index}.example.com/` });

    expect(await refusal(api.post("/api/v1/webhooks", { url: "https://one-more.example.com/" }))).toEqual({ status: 409, code: "webhook_limit_reached" });

    const [first] = (await api.get("/api/v1/webhooks")).body;
    await api.delete(`/api/v1/webhooks/${first.webhookId}`);
    expect((await api.post("/api/v1/webhooks", { url: "https://one-more.example.com/" })).status).toBe(201);
  });
});

describe("each endpoint's own copy of the callbacks it takes", () => {
  it("sends every callback to an endpoint without actions and only the scans to one that takes scanned, each copy signed, with an id and a log of its own", async () => {
    const { api, receiver } = chainApp;
    const everything = await createWebhook(api, { url: receiver.url("/everything") });
    const scans = await createWebhook(api, { url: receiver.url("/scans"), actions: ["scanned"] });
    const { eventId, ticketIds } = await eventWithTickets(api, receiver.url("/event"), 1);
    const [scan] = await stream(api, [{ action: "scannedTicket", data: { ticketId: ticketIds[0] } }]);
    const [scanned] = await settled(api, [scan]);
    await receiver.waitForRequests("/scans", 1);
    await eventually(async () => (forEvent(receiver.requests("/everything"), eventId).length >= 3 ? true : undefined));
    await settle();

    // The event's and the ticket's callbacks keep no order between them: only a ticket's (or an event's) own do.
    const own = forEvent(receiver.requests("/event"), eventId);
    expect(actionsOf(own).sort()).toEqual(["newEvent", "scanned", "sold"]);
    expect(actionsOf(forEvent(receiver.requests("/everything"), eventId)).sort()).toEqual(["newEvent", "scanned", "sold"]);
    expect(actionsOf(forEvent(receiver.requests("/scans"), eventId))).toEqual(["scanned"]);

    // The same body, signed with the organization's secret, under an id (webhook-id) of each copy's own.
    const scanOf = (path: string) => forEvent(receiver.requests(path), eventId).find((request) => bodyOf(request).action === "scanned")!;
    const copies = [scanOf("/event"), scanOf("/everything"), scanOf("/scans")];
    const bodies = copies.map((request) => verifyCallback(request, chainApp.organization.webhookSecret));
    for (const body of bodies) expect(body).toEqual(bodies[0]);
    expect(bodies[0]).toMatchObject({ action: "scanned", actionPromise: scan, eventId, ticketId: ticketIds[0], txHash: scanned.txHash, status: "confirmed" });
    expect(new Set(copies.map((request) => request.headers["webhook-id"])).size).toBe(3);
    expect((await callbackOf(api, eventId, scan, scans)).callbackId).toBe(copies[2].headers["webhook-id"]);
    expect(await callbackOf(api, eventId, scan, scans)).toMatchObject({
      webhookId: scans,
      status: "delivered",
      attempts: 1,
      attemptLog: [{ statusCode: 204 }],
    });
    expect((await callbackOf(api, eventId, scan)).callbackId).toBe(copies[0].headers["webhook-id"]);

    // The callback is a receipt of the chain: the transaction is in the block it names.
    const receipt = await chainApp.chain.provider.getTransactionReceipt(bodies[0].txHash);
    expect(receipt).toMatchObject({ blockNumber: bodies[0].blockNumber, blockHash: bodies[0].blockHash, status: 1 });
    expect((await callbacksOfWebhook(api, everything)).filter((view) => view.eventId === eventId)).toHaveLength(3);
  });
});

describe("test sends", () => {
  it("sends a signed test callback at once and answers what the receiver answered; it is logged, never retried", async () => {
    const { api, receiver } = chainApp;
    const tested = await createWebhook(api, { url: receiver.url("/tested"), actions: ["resold"] });
    receiver.script("/tested", [{ status: 418, delayMs: 150 }, { status: 204 }]);

    const refused = await api.post(`/api/v1/webhooks/${tested}/test`, undefined);
    const accepted = await api.post(`/api/v1/webhooks/${tested}/test`, undefined);

    expect(refused.status).toBe(200);
    expect(refused.body).toEqual({
      callbackId: expect.any(String),
      delivered: false,
      statusCode: 418,
      durationMs: expect.any(Number),
      error: null,
      sentAt: expect.any(String),
    });
    expect(refused.body.durationMs).toBeGreaterThanOrEqual(150);
    expect(accepted.body).toMatchObject({ delivered: true, statusCode: 204, error: null });
    const [first, second] = receiver.requests("/tested");
    expect(verifyCallback(first, chainApp.organization.webhookSecret)).toEqual({
      action: "test",
      transactionType: "notice",
      webhookId: tested,
      sentAt: refused.body.sentAt,
    });
    expect(first.headers["webhook-id"]).toBe(refused.body.callbackId);
    expect(second.headers["webhook-id"]).toBe(accepted.body.callbackId);

    await settle();
    expect(receiver.requests("/tested")).toHaveLength(2);
    const logged = await callbacksOfWebhook(api, tested);
    expect(logged.map((view) => [view.callbackId, view.action, view.status, view.attempts, view.lastStatusCode])).toEqual([
      [accepted.body.callbackId, "test", "delivered", 1, 204],
      [refused.body.callbackId, "test", "failed", 1, 418],
    ]);
    expect(logged[0]).toMatchObject({ actionPromise: null, eventId: null, webhookId: tested });
    // A test changes nothing of the endpoint's failure state.
    expect((await api.get(`/api/v1/webhooks/${tested}`)).body).toMatchObject({ failingSince: null, enabled: true });

    await api.delete(`/api/v1/webhooks/${tested}`);
  });

  it("tests a disabled endpoint too, and answers a receiver that cannot be reached with its error", async () => {
    const { api } = chainApp;
    const closed = await createWebhook(api, { url: "https://localhost:1/closed", actions: ["resold"] });
    await api.patch(`/api/v1/webhooks/${closed}`, { enabled: false });

    const answer = await api.post(`/api/v1/webhooks/${closed}/test`, undefined);

    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ delivered: false, statusCode: null, error: expect.stringMatching(/ECONNREFUSED/) });
    expect((await api.get(`/api/v1/webhooks/${closed}`)).body).toMatchObject({ enabled: false, failingSince: null });
    await api.delete(`/api/v1/webhooks/${closed}`);
  });
});

describe("a receiver that keeps failing", () => {
  let watcher: string;

  it("sends callback_exhausted to the other endpoints that take it, then disables an endpoint failing for 120 hours by the clock; its callbacks are kept and redelivered once it is enabled again", async () => {
    const { api, receiver } = chainApp;
    watcher = await createWebhook(api, { url: receiver.url("/watch"), actions: ["endpoint_disabled", "callback_exhausted"] });
    const down = await createWebhook(api, { url: receiver.url("/down"), actions: ["sold", "updateTicket"] });
    receiver.script("/down", [], { status: 500 });
    const { eventId, ticketIds } = await eventWithTickets(api, receiver.url("/healthy"), 1);

    // The sale's copy fails its three attempts: callback_exhausted goes to the watcher, which takes it.
    const sold = await eventually(async () => (await callbacksOfWebhook(api, down)).find((view) => view.action === "sold" && view.status === "failed"));
    expect(sold.attempts).toBe(3);
    const [exhausted] = await receiver.waitForRequests("/watch", 1);
    expect(verifyCallback(exhausted, chainApp.organization.webhookSecret)).toEqual({
      action: "callback_exhausted",
      transactionType: "notice",
      callbackId: sold.callbackId,
      webhookId: down,
      eventId,
      ticketId: ticketIds[0],
      actionPromise: sold.actionPromise,
      exhaustedAction: "sold",
      attempts: 3,
      lastStatusCode: 500,
      lastError: null,
      exhaustedAt: expect.any(String),
    });
    const failing = await webhookWhen(api, down, (view) => view.failingSince !== null);
    expect(failing.enabled).toBe(true);

    // 121 hours on, its next attempt fails too: it is disabled.
    clock.advanceHours(121);
    const [firstUpdate] = await updateTickets(api, ticketIds);
    const disabled = await webhookWhen(api, down, (view) => !view.enabled);
    expect(disabled).toMatchObject({ disabledReason: "failing", failingSince: failing.failingSince, disabledAt: expect.any(String) });
    expect(new Date(disabled.disabledAt).getTime() - new Date(failing.failingSince).getTime()).toBeGreaterThanOrEqual(120 * 3_600_000);
    const notice = await eventually(async () => receiver.requests("/watch").find((request) => bodyOf(request).action === "endpoint_disabled"));
    expect(verifyCallback(notice, chainApp.organization.webhookSecret)).toEqual({
      action: "endpoint_disabled",
      transactionType: "notice",
      webhookId: down,
      eventId: null,
      receiver: `https://localhost:${receiver.port}`,
      failingSince: failing.failingSince,
      disabledAt: disabled.disabledAt,
    });
    const metrics = await scrapeMetrics(chainApp.testApp.opsUrl);
    expect(total(metrics.samples, "ticket_registry_callback_receivers_disabled_total", { receiver: "webhook" })).toBe(1);

    // Disabled: a new callback is kept without an attempt; the callbackUrl's copy goes as ever.
    const attemptsBefore = receiver.requests("/down").length;
    const [secondUpdate] = await updateTickets(api, ticketIds);
    await eventually(async () =>
      forEvent(receiver.requests("/healthy"), eventId).some((request) => bodyOf(request).actionPromise === secondUpdate) ? true : undefined,
    );
    await settle();
    expect(receiver.requests("/down")).toHaveLength(attemptsBefore);
    const held = await callbackOf(api, eventId, secondUpdate, down);
    expect(held).toMatchObject({ status: "failed", attempts: 0, lastError: RECEIVER_DISABLED_ERROR });
    expect(await callbackOf(api, eventId, firstUpdate, down)).toMatchObject({ status: "failed", attempts: 1, lastError: RECEIVER_DISABLED_ERROR });
    expect(await refusal(api.post(`/api/v1/callbacks/${held.callbackId}/redeliver`, undefined))).toEqual({ status: 409, code: "receiver_disabled" });
    expect((await redeliver({ webhookId: down })).body).toEqual({ queued: 0, inFlight: 0, receiverDisabled: 3 });

    // Enabled again, its failures forgotten; redelivery sends what it missed.
    receiver.script("/down", [], { status: 204 });
    expect((await api.patch(`/api/v1/webhooks/${down}`, { enabled: true })).body).toMatchObject({ enabled: true, disabledReason: null, failingSince: null });
    expect((await redeliver({ webhookId: down })).body).toEqual({ queued: 3, inFlight: 0, receiverDisabled: 0 });
    await eventually(async () => ((await callbacksOfWebhook(api, down)).every((view) => view.status === "delivered") ? true : undefined));
    const resent = receiver.requests("/down").slice(attemptsBefore);
    expect(resent.map((request) => bodyOf(request).actionPromise).sort()).toEqual([sold.actionPromise, firstUpdate, secondUpdate].sort());
    for (const request of resent) verifyCallback(request, chainApp.organization.webhookSecret);
    expect(resent.find((request) => bodyOf(request).actionPromise === secondUpdate)!.headers["webhook-id"]).toBe(held.callbackId);
    await api.delete(`/api/v1/webhooks/${down}`);
  });

  it("disables an event's callbackUrl the same way; an updateEvent carrying a callbackUrl enables it again, and its callbacks are redelivered", async () => {
    const { api, receiver } = chainApp;
    receiver.script("/event-down", [], { status: 500 });
    const { eventId, ticketIds } = await eventWithTickets(api, receiver.url("/event-down"), 1);
    await eventually(async () => ((await api.get(`/api/v1/events/${eventId}`)).body.callbackFailingSince ? true : undefined));

    clock.advanceHours(121);
    // Confirmed on chain, its callback is the third the disabled receiver keeps.
    await settled(api, await updateTickets(api, ticketIds));
    const event = await eventually(async () => {
      const view = (await api.get(`/api/v1/events/${eventId}`)).body;
      return view.callbackDisabledAt ? view : undefined;
    });
    const notice = await eventually(async () =>
      receiver.requests("/watch").find((request) => bodyOf(request).action === "endpoint_disabled" && bodyOf(request).eventId === eventId),
    );
    expect(verifyCallback(notice, chainApp.organization.webhookSecret)).toMatchObject({
      webhookId: null,
      eventId,
      failingSince: event.callbackFailingSince,
      disabledAt: event.callbackDisabledAt,
    });
    const metrics = await scrapeMetrics(chainApp.testApp.opsUrl);
    expect(total(metrics.samples, "ticket_registry_callback_receivers_disabled_total", { receiver: "callback_url" })).toBe(1);
    // The update's callback is kept as failed a moment after its action confirms: redelivery counts the three once they all are.
    await eventually(async () => {
      const own = (await api.get(`/api/v1/callbacks?eventId=${encodeURIComponent(eventId)}&limit=500`)).body.filter(
        (view: { webhookId: string | null }) => view.webhookId === null,
      );
      return own.length === 3 && own.every((view: { status: string }) => view.status === "failed") ? true : undefined;
    });
    expect((await redeliver({ eventId, status: "failed" })).body).toEqual({ queued: 0, inFlight: 0, receiverDisabled: 3 });

    // Other updates leave it disabled; one that carries the callbackUrl (the same here) enables it again.
    receiver.script("/event-down", [], { status: 204 });
    const [image] = await stream(api, [{ action: "updateEvent", data: { eventId, imageUrl: "https://images.example.com/new.png" } }]);
    await settled(api, [image]);
    expect((await api.get(`/api/v1/events/${eventId}`)).body.callbackDisabledAt).toBe(event.callbackDisabledAt);
    expect(await callbackOf(api, eventId, image)).toMatchObject({ status: "failed", attempts: 0, lastError: RECEIVER_DISABLED_ERROR });
    const [enable] = await stream(api, [{ action: "updateEvent", data: { eventId, callbackUrl: receiver.url("/event-down") } }]);
    expect((await api.get(`/api/v1/events/${eventId}`)).body).toMatchObject({ callbackDisabledAt: null, callbackFailingSince: null });
    await eventually(async () => ((await callbackOf(api, eventId, enable))?.status === "delivered" ? true : undefined));

    // newEvent, sold, the updateTicket and the image's updateEvent, all kept while it was disabled.
    expect((await redeliver({ eventId, status: "failed" })).body).toEqual({ queued: 4, inFlight: 0, receiverDisabled: 0 });
    await eventually(async () => {
      const views = (await api.get(`/api/v1/callbacks?eventId=${eventId}&limit=500`)).body.filter(
        (view: { webhookId: string | null }) => view.webhookId === null,
      );
      return views.every((view: { status: string }) => view.status === "delivered") ? true : undefined;
    });
    const delivered = forEvent(receiver.requests("/event-down"), eventId).filter((request) => request.reply.status === 204);
    expect(new Set(actionsOf(delivered))).toEqual(new Set(["newEvent", "sold", "updateTicket", "updateEvent"]));
  });

  it("leaves an endpoint that answers alone whatever the clock says", async () => {
    const { api, receiver } = chainApp;
    const steady = await createWebhook(api, { url: receiver.url("/steady"), actions: ["sold"] });
    await eventWithTickets(api, receiver.url("/healthy"), 1);
    await receiver.waitForRequests("/steady", 1);
    clock.advanceHours(1_000);
    await eventWithTickets(api, receiver.url("/healthy"), 1);
    await receiver.waitForRequests("/steady", 2);
    await settle(500);
    expect((await api.get(`/api/v1/webhooks/${steady}`)).body).toMatchObject({ enabled: true, failingSince: null });
    expect((await api.get(`/api/v1/webhooks/${watcher}`)).body).toMatchObject({ enabled: true, failingSince: null });
  });
});
