import { beforeAll, describe, expect, it } from "vitest";

import {
  type CallbackBody,
  createRegistryClient,
  type EventCancellation,
  type ForbiddenBody,
  isNotice,
  type KeyRefusalCode,
  type NewEvent,
  type NewWebhook,
  type RegistryClient,
  type SoldTicket,
  verifyWebhook,
  waitForFinalStatus,
  type WebhookEndpoint,
  type WebhookTestResult,
  WebhookVerificationError,
} from "../../client/src";
import { OrganizationsService } from "../../src/auth/organizations.service";
import { eventually, uid } from "../support/callbacks-e2e";
import { useChainApp } from "../support/chain-app";
import { ticketView, tokenIds } from "../support/chain-e2e";

/**
 * The integrator's typed client (client/src) against the real app on Postgres, Redis and a Hardhat
 * chain: every request below is typed by the generated types of openapi.json, so a change of the
 * document that breaks an integrator breaks the type check of this file. Callbacks go to a local
 * HTTPS receiver and are verified with the client's webhook helper.
 */

let registry: RegistryClient;

const chainApp = useChainApp({ receiver: true });

beforeAll(() => {
  registry = createRegistryClient({ baseUrl: chainApp.testApp.baseUrl, apiKey: chainApp.organization.key });
});

describe("the typed client", () => {
  it("registers an event, sells a ticket, reads their status and verifies the signed callbacks", async () => {
    const path = "/typed-client";
    const eventId = uid("event");
    const ticketId = uid("ticket");

    const event: NewEvent = { eventId, ticketeerId: chainApp.ticketeerId, eventName: "Concert", currency: "EUR", callbackUrl: chainApp.receiver.url(path) };
    const registered = await registry.POST("/api/v1/events", { body: event });
    expect(registered.response.status).toBe(200);
    if (!registered.data) throw new Error(`event refused: ${JSON.stringify(registered.error)}`);
    expect(registered.data).toMatchObject({ eventId, status: "success" });
    const eventPromise = registered.data.txPromise;

    const sale: SoldTicket = { eventId, ticketId, price: "49.95", orderTime: 1_750_000_000 };
    const sold = await registry.POST("/api/v1/sold", { body: [sale] });
    expect(sold.response.status).toBe(200);
    const [result] = sold.data ?? [];
    expect(result).toMatchObject({ ticketId, status: "success" });
    const salePromise = result.txPromise;
    if (!salePromise) throw new Error(`sale refused: ${JSON.stringify(result)}`);

    const [eventStatus, saleStatus] = await Promise.all([waitForFinalStatus(registry, eventPromise), waitForFinalStatus(registry, salePromise)]);
    expect(eventStatus).toMatchObject({ actionPromise: eventPromise, action: "newEvent", status: "confirmed", eventId });
    expect(saleStatus).toMatchObject({ actionPromise: salePromise, action: "sold", status: "confirmed", eventId, ticketId, error: null });
    expect(saleStatus.txHash).toMatch(/^0x[0-9a-f]{64}$/);
    expect(saleStatus.blockHash).toMatch(/^0x[0-9a-f]{64}$/);

    const action = await registry.GET("/api/v1/actions/{promise}", { params: { path: { promise: salePromise } } });
    expect(action.data).toEqual(saleStatus);

    const ticket = await registry.GET("/api/v1/tickets/{ticketId}", { params: { path: { ticketId } } });
    if (!ticket.data) throw new Error(`GET ticket answered ${ticket.response.status}`);
    expect(ticket.data).toMatchObject({ ticketId, eventId, price: "49.95" });
    expect(ticket.data.chain.minted).toBe(true);
    const tokenId = ticket.data.chain.tokenId;
    expect(await chainApp.chain.registry.ownerOf(BigInt(tokenId))).toMatch(/^0x[0-9a-fA-F]{40}$/);

    // Both callbacks arrive at the receiver, signed with the organization's secret.
    const requests = await chainApp.receiver.waitForRequests(path, 2);
    const callbacks = new Map<string, CallbackBody>();
    for (const request of requests) {
      expect(request.method).toBe("POST");
      const body = verifyWebhook(request.body, request.headers, { secret: chainApp.organization.webhookSecret });
      if (isNotice(body)) throw new Error(`an event's callbackUrl got a notice: ${request.body}`);
      callbacks.set(body.actionPromise, body);
    }
    expect(callbacks.get(eventPromise)).toMatchObject({ transactionType: "event", action: "newEvent", eventId, ticketId: null, status: "confirmed" });
    expect(callbacks.get(salePromise)).toEqual({
      txHash: saleStatus.txHash,
      transactionType: "ticket",
      action: "sold",
      eventId,
      ticketId,
      actionPromise: salePromise,
      status: "confirmed",
      error: null,
      blockNumber: saleStatus.blockNumber,
      blockHash: saleStatus.blockHash,
      tokenId,
      chainId: Number(chainApp.chain.chainId),
      registryAddress: expect.stringMatching(/^0x[0-9a-fA-F]{40}$/),
    });

    // What a receiver must refuse: a changed body, another organization's secret.
    const saleRequest = requests.find((request) => request.body.includes(salePromise))!;
    const tampered = saleRequest.body.replace('"confirmed"', '"error"');
    expect(() => verifyWebhook(tampered, saleRequest.headers, { secret: chainApp.organization.webhookSecret })).toThrow(WebhookVerificationError);
    const other = await chainApp.testApp.organization();
    expect(() => verifyWebhook(saleRequest.body, saleRequest.headers, { secret: other.webhookSecret })).toThrow(/no webhook-signature matches/);

    // The callback log, through the client: the webhook-id header is the callback's id.
    const callbackId = String(saleRequest.headers["webhook-id"]);
    const logged = await eventually(async () => {
      const { data } = await registry.GET("/api/v1/callbacks/{callbackId}", { params: { path: { callbackId } } });
      return data?.status === "delivered" ? data : undefined;
    });
    expect(logged).toMatchObject({ callbackId, actionPromise: salePromise, eventId, ticketId, status: "delivered", attempts: 1 });
    const listed = await registry.GET("/api/v1/callbacks", { params: { query: { eventId, status: "delivered" } } });
    expect(listed.data?.map((view) => view.actionPromise).sort()).toEqual([eventPromise, salePromise].sort());
  });

  it("cancels an event with its tickets, and gets its refusals typed: event_cancelled, event_not_found", async () => {
    const eventId = uid("event");
    const ticketId = uid("ticket");
    await registry.POST("/api/v1/events", {
      body: { eventId, ticketeerId: chainApp.ticketeerId, currency: "EUR", callbackUrl: "https://tickets.example.com/cb" },
    });
    const sold = await registry.POST("/api/v1/sold", { body: [{ eventId, ticketId, price: "20.00" }] });
    await waitForFinalStatus(registry, sold.data![0].txPromise!);

    const cancelled = await registry.POST("/api/v1/events/{eventId}/cancel", { params: { path: { eventId } } });
    if (!cancelled.data) throw new Error(`cancellation refused: ${JSON.stringify(cancelled.error)}`);
    const cancellation: EventCancellation = cancelled.data;
    expect(cancellation).toMatchObject({ eventId, status: "success" });
    expect(await waitForFinalStatus(registry, cancellation.txPromise)).toMatchObject({
      action: "cancelledEvent",
      status: "confirmed",
      eventId,
      ticketId: null,
    });
    const ticket = await registry.GET("/api/v1/tickets/{ticketId}", { params: { path: { ticketId } } });
    expect(ticket.data).toMatchObject({ state: "event_cancelled", eventCancelled: true, chain: { eventCancelled: true } });
    expect((await ticketView(chainApp.chain, BigInt(ticket.data!.chain.tokenId))).holder).toMatch(/^0x[0-9a-fA-F]{40}$/);
    expect((await chainApp.chain.registry.tickets([BigInt(ticket.data!.chain.tokenId)]))[0].eventCancelled).toBe(true);

    const again = await registry.POST("/api/v1/events/{eventId}/cancel", { params: { path: { eventId } } });
    expect(again.response.status).toBe(409);
    expect(again.error).toMatchObject({ status: "error", eventId, error: { code: "event_cancelled", field: "eventId" } });
    const unknown = await registry.POST("/api/v1/events/{eventId}/cancel", { params: { path: { eventId: uid("no-such-event") } } });
    expect(unknown.response.status).toBe(404);
    expect(unknown.error).toMatchObject({ error: { code: "event_not_found", field: "eventId" } });
  });

  it("adds a webhook endpoint, tests it and reads its state, typed; the test callback verifies as a notice", async () => {
    const path = "/typed-webhook";
    const webhook: NewWebhook = { url: chainApp.receiver.url(path), actions: ["scanned", "transferred"], description: "door dashboard" };
    const created = await registry.POST("/api/v1/webhooks", { body: webhook });
    expect(created.response.status).toBe(201);
    if (!created.data) throw new Error(`webhook refused: ${JSON.stringify(created.error)}`);
    const webhookId = created.data.webhookId;

    const tested = await registry.POST("/api/v1/webhooks/{webhookId}/test", { params: { path: { webhookId } } });
    const result: WebhookTestResult | undefined = tested.data;
    expect(result).toMatchObject({ delivered: true, statusCode: 204, error: null });
    const [request] = await chainApp.receiver.waitForRequests(path, 1);
    const notice = verifyWebhook(request.body, request.headers, { secret: chainApp.organization.webhookSecret });
    expect(isNotice(notice) && notice.action === "test" && notice.webhookId === webhookId).toBe(true);

    const paused = await registry.PATCH("/api/v1/webhooks/{webhookId}", { params: { path: { webhookId } }, body: { enabled: false } });
    const view: WebhookEndpoint | undefined = paused.data;
    expect(view).toMatchObject({ webhookId, enabled: false, disabledReason: "request", actions: ["scanned", "transferred"] });
    // An unknown action does not type-check; a url callbacks cannot go to is refused by the service.
    const refused = await registry.POST("/api/v1/webhooks", { body: { url: "https://10.0.0.8/hooks" } });
    expect(refused.response.status).toBe(400);
    expect(refused.error).toMatchObject({ error: { code: "invalid_field", field: "url" } });
    const deleted = await registry.DELETE("/api/v1/webhooks/{webhookId}", { params: { path: { webhookId } } });
    expect(deleted.response.status).toBe(204);
  });

  it("answers errors as typed error bodies: an unknown action, a refused item, a wrong API key", async () => {
    const missing = await registry.GET("/api/v1/actions/{promise}", { params: { path: { promise: "00000000-0000-4000-8000-000000000000" } } });
    expect(missing.response.status).toBe(404);
    expect(missing.data).toBeUndefined();
    expect(missing.error).toMatchObject({ error: { code: "action_not_found" } });

    const refused = await registry.POST("/api/v1/sold", { body: [{ eventId: uid("no-such-event"), ticketId: uid("ticket"), price: "1.00" }] });
    expect(refused.response.status).toBe(200);
    expect(refused.data?.[0]).toMatchObject({ status: "error", error: { code: expect.any(String) } });

    const stranger = createRegistryClient({ baseUrl: `${chainApp.testApp.baseUrl}/`, apiKey: "not-a-key" });
    const forbidden = await stranger.GET("/api/v1/tickets/{ticketId}", { params: { path: { ticketId: "t" } } });
    expect(forbidden.response.status).toBe(403);
    expect(forbidden.error).toEqual({ message: "Forbidden" });
  });

  it("checks tickets in with a door scanner's scan key, on chain, and gets its refusals typed (key_scope)", async () => {
    const door = await chainApp.testApp.app.get(OrganizationsService).issueKey(chainApp.ticketeerId, "door-1", { scope: "scan" });
    const scanner = createRegistryClient({ baseUrl: chainApp.testApp.baseUrl, apiKey: door.key });
    const eventId = uid("event");
    const [ticketId, otherId] = [uid("ticket"), uid("ticket")];
    await registry.POST("/api/v1/events", {
      body: { eventId, ticketeerId: chainApp.ticketeerId, currency: "EUR", callbackUrl: "https://tickets.example.com/cb" },
    });
    const sold = await registry.POST("/api/v1/sold", { body: [ticketId, otherId].map((id) => ({ eventId, ticketId: id, price: "20.00" })) });
    await Promise.all((sold.data ?? []).map((item) => waitForFinalStatus(registry, item.txPromise!)));

    const scanned = await scanner.POST("/api/v1/scanned", { body: [{ ticketId }] });
    expect(scanned.data?.[0]).toMatchObject({ ticketId, status: "success" });
    expect(await waitForFinalStatus(scanner, scanned.data![0].txPromise!)).toMatchObject({ action: "scanned", status: "confirmed" });
    const tokens = await tokenIds(chainApp.testApp, [ticketId, otherId]);
    expect(await ticketView(chainApp.chain, tokens.get(ticketId)!)).toMatchObject({ checkedIn: true, invalidated: false });

    const resale = await scanner.POST("/api/v1/resold", { body: [{ ticketId: otherId, price: "30.00" }] });
    const invalidation = await scanner.POST("/api/v1/stream", { body: [{ action: "invalidatedTicket", data: { ticketId: otherId } }] });
    // A 403's body is the Forbidden one: `"message" in error` tells it from the other error bodies.
    const refusals = [resale.error, invalidation.error].map((error): ForbiddenBody | undefined => (error && "message" in error ? error : undefined));
    const codes: (KeyRefusalCode | undefined)[] = refusals.map((body) => body?.code);
    expect([resale.response.status, invalidation.response.status]).toEqual([403, 403]);
    expect(refusals).toEqual([
      { message: "Forbidden", code: "key_scope" },
      { message: "Forbidden", code: "key_scope" },
    ]);
    expect(codes).toEqual(["key_scope", "key_scope"]);
    const other = await scanner.GET("/api/v1/tickets/{ticketId}", { params: { path: { ticketId: otherId } } });
    expect(other.data).toMatchObject({ state: "valid", resales: 0, invalidated: false });
    expect(await ticketView(chainApp.chain, tokens.get(otherId)!)).toMatchObject({ checkedIn: false, invalidated: false, resales: 0n });
  });
});
