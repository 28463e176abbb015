import { randomBytes } from "node:crypto";

import { Webhook } from "standardwebhooks";
import { DataSource } from "typeorm";
import { describe, expect, it } from "vitest";

import {
  callbackOf,
  callbackWhen,
  eventually,
  eventWithTickets,
  hmacMatches,
  requestsFor,
  settled,
  stream,
  uid,
  updateTicketOf,
  updateTickets,
  verifyCallback,
  webhookHeaders,
} from "../support/callbacks-e2e";
import { useChainApp } from "../support/chain-app";

/**
 * Delivery to local HTTPS receivers (trusted through NODE_EXTRA_CA_CERTS, reached as `localhost`)
 * from the real app on real Postgres, Redis and a Hardhat chain. The retry schedule is shrunk a
 * hundredfold (first retry after about 100 ms); a receiver's Retry-After is honoured as given.
 */
// Long enough for another event's actions to reach the chain and be called back while a hanging
// receiver still holds its requests, even on a loaded two-core machine.
const TIMEOUT_MS = 4_000;

// Secrets stored encrypted, as in production: signing must read them back.
const chainApp = useChainApp({
  receiver: true,
  env: { CALLBACK_TIMEOUT_MS: String(TIMEOUT_MS), CALLBACK_LEASE_MS: "5000", WEBHOOK_SECRETS_KEY: randomBytes(32).toString("base64") },
});

const updateTicketRequests = (path: string, ticketId: string) =>
  chainApp.receiver.requests(path).filter((request) => updateTicketOf(ticketId)(JSON.parse(request.body)));

describe("signed callbacks of confirmed on-chain actions", () => {
  it("posts each action's body, signed per Standard Webhooks with the organization's secret, verified by two independent verifiers", async () => {
    const path = "/signed";
    const { eventId, ticketIds, promises } = await eventWithTickets(chainApp.api, chainApp.receiver.url(path), 2);
    const views = await settled(chainApp.api, promises);
    const requests = await eventually(
      async () => (chainApp.receiver.requests(path).length >= 3 ? chainApp.receiver.requests(path) : undefined),
      20_000,
      "3 callbacks",
    );
    expect(requests).toHaveLength(3);
    const stored = await chainApp.testApp.app.get(DataSource).query<{ secret: string }[]>(`SELECT secret FROM webhook_secrets`);
    expect(stored.every((row) => row.secret.startsWith("enc:v1:") && !row.secret.includes(chainApp.organization.webhookSecret.slice("whsec_".length)))).toBe(
      true,
    );

    for (const [index, promise] of promises.entries()) {
      const [request] = requestsFor(requests, promise);
      expect(request.method).toBe("POST");
      expect(request.headers["content-type"]).toBe("application/json");
      const body = verifyCallback(request, chainApp.organization.webhookSecret);
      const view = await callbackWhen(chainApp.api, eventId, promise);
      expect(request.headers["webhook-id"]).toBe(view.callbackId);
      expect(Math.abs(Number(request.headers["webhook-timestamp"]) - Date.now() / 1000)).toBeLessThan(120);
      expect(view).toMatchObject({ status: "delivered", attempts: 1, lastStatusCode: 204, lastError: null });
      expect(view.attemptLog).toEqual([expect.objectContaining({ statusCode: 204, error: null, url: chainApp.receiver.url(path) })]);
      expect(view.body).toEqual(body);
      expect(body).toMatchObject({
        txHash: views[index].txHash,
        blockNumber: views[index].blockNumber,
        blockHash: views[index].blockHash,
        eventId,
        actionPromise: promise,
        status: "confirmed",
        error: null,
        chainId: 31337,
        registryAddress: chainApp.chain.registryAddress,
      });
      expect(body.txHash).toMatch(/^0x[0-9a-f]{64}$/);
      if (index === 0) {
        expect(body).toMatchObject({ transactionType: "event", action: "newEvent", ticketId: null, tokenId: null });
      } else {
        expect(body).toMatchObject({ transactionType: "ticket", action: "sold", ticketId: ticketIds[index - 1], tokenId: expect.stringMatching(/^\d+$/) });
        const ticket = (await chainApp.api.get(`/api/v1/tickets/${ticketIds[index - 1]}`)).body;
        expect(body.tokenId).toBe(ticket.chain.tokenId);
      }
    }

    // Both verifiers refuse a changed body, a changed id and another secret.
    const [request] = requests;
    const tampered = request.body.replace('"status":"confirmed"', '"status":"error"');
    expect(tampered).not.toBe(request.body);
    expect(() => new Webhook(chainApp.organization.webhookSecret).verify(tampered, webhookHeaders(request))).toThrow("No matching signature found");
    expect(hmacMatches(tampered, webhookHeaders(request), chainApp.organization.webhookSecret)).toBe(false);
    const otherId = { ...webhookHeaders(request), "webhook-id": "another-id" };
    expect(() => new Webhook(chainApp.organization.webhookSecret).verify(request.body, otherId)).toThrow("No matching signature found");
    expect(hmacMatches(request.body, otherId, chainApp.organization.webhookSecret)).toBe(false);
    const otherSecret = (await chainApp.testApp.organization()).webhookSecret;
    expect(() => new Webhook(otherSecret).verify(request.body, webhookHeaders(request))).toThrow("No matching signature found");
    expect(hmacMatches(request.body, webhookHeaders(request), otherSecret)).toBe(false);
  });
});

describe("retries", () => {
  it("gives a receiver that fails twice then succeeds the same webhook-id each time, and logs 3 attempts", async () => {
    const path = "/flaky";
    const { eventId, ticketIds } = await eventWithTickets(chainApp.api, chainApp.receiver.url(path), 1);
    chainApp.receiver.script(path, [{ status: 500 }, { status: 502, body: "bad gateway" }], { status: 200, body: "ok" }, updateTicketOf(ticketIds[0]));
    const [promise] = await updateTickets(chainApp.api, ticketIds);

    const view = await callbackWhen(chainApp.api, eventId, promise);
    expect(view).toMatchObject({ status: "delivered", attempts: 3, lastStatusCode: 200, lastError: null, deliveredAt: expect.any(String) });
    expect(view.attemptLog.map((attempt: any) => attempt.statusCode)).toEqual([500, 502, 200]);
    const requests = requestsFor(chainApp.receiver.requests(path), promise);
    expect(requests).toHaveLength(3);
    expect(new Set(requests.map((request) => request.headers["webhook-id"]))).toEqual(new Set([view.callbackId]));
    expect(new Set(requests.map((request) => request.body)).size).toBe(1);
    for (const request of requests)
      expect(verifyCallback(request, chainApp.organization.webhookSecret)).toMatchObject({
        action: "updateTicket",
        actionPromise: promise,
        status: "confirmed",
        txHash: expect.stringMatching(/^0x[0-9a-f]{64}$/),
      });
  });

  it("stops at 410 Gone: failed after one attempt", async () => {
    const path = "/gone";
    const { eventId, ticketIds } = await eventWithTickets(chainApp.api, chainApp.receiver.url(path), 1);
    chainApp.receiver.script(path, [], { status: 410 }, updateTicketOf(ticketIds[0]));
    const [promise] = await updateTickets(chainApp.api, ticketIds);

    const view = await callbackWhen(chainApp.api, eventId, promise);
    expect(view).toMatchObject({ status: "failed", attempts: 1, lastStatusCode: 410, nextAttemptAt: null, deliveredAt: null });
    await new Promise((resolve) => setTimeout(resolve, 700)); // several scaled retry delays
    expect(requestsFor(chainApp.receiver.requests(path), promise)).toHaveLength(1);
    expect((await callbackOf(chainApp.api, eventId, promise)).attempts).toBe(1);
  });

  it("does not follow a redirect: the Location target receives nothing and the 3xx counts as a failure", async () => {
    const path = "/moved";
    const { eventId, ticketIds } = await eventWithTickets(chainApp.api, chainApp.receiver.url(path), 1);
    chainApp.receiver.script(
      path,
      [
        { status: 302, headers: { location: chainApp.receiver.url("/redirect-target") } },
        { status: 308, headers: { location: chainApp.receiver.url("/redirect-target") } },
      ],
      {},
      updateTicketOf(ticketIds[0]),
    );
    const [promise] = await updateTickets(chainApp.api, ticketIds);

    const view = await callbackWhen(chainApp.api, eventId, promise);
    expect(view.attemptLog.map((attempt: any) => attempt.statusCode)).toEqual([302, 308, 204]);
    expect(view).toMatchObject({ status: "delivered", attempts: 3 });
    expect(chainApp.receiver.requests("/redirect-target")).toEqual([]);
  });

  it("times out a receiver that hangs beyond CALLBACK_TIMEOUT_MS and retries", async () => {
    const path = "/hang";
    const { eventId, ticketIds } = await eventWithTickets(chainApp.api, chainApp.receiver.url(path), 1);
    chainApp.receiver.script(path, [{ hang: true }], {}, updateTicketOf(ticketIds[0]));
    const [promise] = await updateTickets(chainApp.api, ticketIds);

    const view = await callbackWhen(chainApp.api, eventId, promise);
    expect(view).toMatchObject({ status: "delivered", attempts: 2, lastStatusCode: 204 });
    expect(view.attemptLog[0]).toMatchObject({ statusCode: null, error: `no answer within ${TIMEOUT_MS} ms` });
    expect(view.attemptLog[0].durationMs).toBeGreaterThanOrEqual(TIMEOUT_MS - 50);
    const requests = requestsFor(chainApp.receiver.requests(path), promise);
    expect(requests).toHaveLength(2);
    expect(requests[1].headers["webhook-id"]).toBe(requests[0].headers["webhook-id"]);
    expect(requests[1].receivedAt - requests[0].receivedAt).toBeGreaterThanOrEqual(TIMEOUT_MS - 50);
  });

  it("reads at most 64 KiB of an answer: a 200 followed by a 2 GiB body is delivered at once, and the receiver's connection closed after a few chunks", async () => {
    const path = "/endless";
    const { eventId, ticketIds } = await eventWithTickets(chainApp.api, chainApp.receiver.url(path), 1);
    chainApp.receiver.script(path, [{ status: 200, streamBytes: 2 * 1024 ** 3 }], {}, updateTicketOf(ticketIds[0]));
    const [promise] = await updateTickets(chainApp.api, ticketIds);

    const view = await callbackWhen(chainApp.api, eventId, promise);
    expect(view).toMatchObject({ status: "delivered", attempts: 1, lastStatusCode: 200, lastError: null });
    const [request] = requestsFor(chainApp.receiver.requests(path), promise);
    await request.streamed!.done;
    expect(request.streamed!.closedByClient).toBe(true);
    // 64 KiB read, and what the connection's buffers took before the close: nowhere near 2 GiB.
    expect(request.streamed!.bytesWritten).toBeLessThan(32 * 1024 ** 2);
  });

  it("waits as long as 429 and 503 ask with Retry-After (seconds or an HTTP date) before the next attempt", async () => {
    const path = "/busy";
    const { eventId, ticketIds } = await eventWithTickets(chainApp.api, chainApp.receiver.url(path), 3);
    const [slowDown, unavailable, plain] = ticketIds;
    chainApp.receiver.script(path, [{ status: 429, headers: { "retry-after": "2" } }], {}, updateTicketOf(slowDown));
    // Far enough ahead to outlast the action's way to the chain and its first attempt, even on a loaded machine.
    const retryDate = new Date(Date.now() + 8_000).toUTCString();
    chainApp.receiver.script(path, [{ status: 503, headers: { "retry-after": retryDate } }], {}, updateTicketOf(unavailable));
    chainApp.receiver.script(path, [{ status: 503 }], {}, updateTicketOf(plain)); // no Retry-After: the (shrunk) schedule
    const promises = await updateTickets(chainApp.api, ticketIds);

    const views = await Promise.all(promises.map((promise) => callbackWhen(chainApp.api, eventId, promise)));
    for (const view of views) expect(view).toMatchObject({ status: "delivered", attempts: 2 });
    const attempts = (promise: string) => requestsFor(chainApp.receiver.requests(path), promise);
    const gap = (promise: string) => {
      const [first, second] = attempts(promise);
      return second.receivedAt - first.receivedAt;
    };
    expect(views.map((view) => view.attemptLog[0].statusCode)).toEqual([429, 503, 503]);
    expect(gap(promises[0])).toBeGreaterThanOrEqual(2_000);
    expect(attempts(promises[1])[1].receivedAt).toBeGreaterThanOrEqual(Date.parse(retryDate)); // not before the date it named
    expect(gap(promises[2])).toBeLessThan(1_000);
  });
});

describe("scaling and ordering", () => {
  it("does not let a slow receiver delay another event's callbacks", async () => {
    const [slow, fast] = await Promise.all([
      eventWithTickets(chainApp.api, chainApp.receiver.url("/slow"), 2),
      eventWithTickets(chainApp.api, chainApp.receiver.url("/fast"), 3),
    ]);
    chainApp.receiver.script("/slow", [], { hang: true }, (body) => body?.action === "updateTicket");
    const slowPromises = await updateTickets(chainApp.api, slow.ticketIds);
    const hanging = await eventually(async () => {
      const requests = chainApp.receiver.requests("/slow").filter((request) => JSON.parse(request.body).action === "updateTicket");
      return requests.length === 2 ? requests : undefined;
    });

    const fastPromises = await updateTickets(chainApp.api, fast.ticketIds);
    const delivered = await Promise.all(fastPromises.map((promise) => callbackWhen(chainApp.api, fast.eventId, promise)));
    const slowViews = await Promise.all(slowPromises.map((promise) => callbackOf(chainApp.api, slow.eventId, promise)));
    // Every fast callback arrived while the slow receiver still held both requests (before they could time out).
    const fastArrivals = fastPromises.flatMap((promise) => requestsFor(chainApp.receiver.requests("/fast"), promise));
    const slowHeldUntil = Math.min(...hanging.map((request) => request.receivedAt)) + TIMEOUT_MS;
    expect(Math.max(...fastArrivals.map((request) => request.receivedAt))).toBeLessThan(slowHeldUntil);
    expect(delivered.map((view) => view.status)).toEqual(["delivered", "delivered", "delivered"]);
    for (const view of slowViews) expect(view).toMatchObject({ status: "pending", attempts: 0 });
  });

  it("keeps a ticket's order: a later action's callback waits for an earlier one's first attempt; other tickets do not wait", async () => {
    const path = "/order";
    const { eventId, ticketIds } = await eventWithTickets(chainApp.api, chainApp.receiver.url(path), 2);
    const [first, other] = ticketIds;
    chainApp.receiver.script(path, [{ delayMs: 800 }], {}, updateTicketOf(first));
    const [earlier, later, otherTicket] = await updateTickets(chainApp.api, [first, first, other]);

    await Promise.all([earlier, later, otherTicket].map((promise) => callbackWhen(chainApp.api, eventId, promise)));
    const [earlierRequest] = requestsFor(chainApp.receiver.requests(path), earlier);
    const [laterRequest] = requestsFor(chainApp.receiver.requests(path), later);
    const [otherRequest] = requestsFor(chainApp.receiver.requests(path), otherTicket);
    expect(laterRequest.receivedAt).toBeGreaterThanOrEqual(earlierRequest.answeredAt as number);
    expect(otherRequest.receivedAt).toBeLessThan(earlierRequest.answeredAt as number);
  });

  it("reports a ticket's actions in acceptance order when some wait for the chain and some do not", async () => {
    const path = "/mixed-order";
    const { eventId } = await eventWithTickets(chainApp.api, chainApp.receiver.url(path), 0);
    const ticketId = uid("ticket");
    // updateTicket needs nothing on chain: its callback is ready at once, yet must follow the sale's.
    const promises = await stream(chainApp.api, [
      { action: "soldTicket", data: { eventId, ticketId, price: "5.00", orderTime: 1_750_000_000 } },
      { action: "updateTicket", data: { ticketId, uri: "https://meta.example.com/1" } },
      { action: "scannedTicket", data: { ticketId, orderTime: 1_750_000_100 } },
      { action: "updateTicket", data: { ticketId, uri: "https://meta.example.com/2" } },
    ]);
    await Promise.all(promises.map((promise) => callbackWhen(chainApp.api, eventId, promise)));
    const arrived = chainApp.receiver
      .requests(path)
      .map((request) => JSON.parse(request.body))
      .filter((body) => body.ticketId === ticketId);
    expect(arrived.map((body) => body.actionPromise)).toEqual(promises);
    expect(arrived.map((body) => body.action)).toEqual(["sold", "updateTicket", "scanned", "updateTicket"]);
  });

  it("sends to the callbackUrl in force at send time: updateEvent moves the retries", async () => {
    const { eventId, ticketIds } = await eventWithTickets(chainApp.api, chainApp.receiver.url("/old"), 1);
    chainApp.receiver.script("/old", [{ status: 503, headers: { "retry-after": "2" } }], {}, updateTicketOf(ticketIds[0]));
    const [promise] = await updateTickets(chainApp.api, ticketIds);
    await eventually(async () => (updateTicketRequests("/old", ticketIds[0]).length === 1 ? true : undefined));
    const [moved] = await stream(chainApp.api, [{ action: "updateEvent", data: { eventId, callbackUrl: chainApp.receiver.url("/new") } }]);

    const view = await callbackWhen(chainApp.api, eventId, promise);
    expect(view.attemptLog.map((attempt: any) => [attempt.url, attempt.statusCode])).toEqual([
      [chainApp.receiver.url("/old"), 503],
      [chainApp.receiver.url("/new"), 204],
    ]);
    expect(updateTicketRequests("/old", ticketIds[0])).toHaveLength(1);
    expect(updateTicketRequests("/new", ticketIds[0])).toHaveLength(1);
    // The updateEvent's own callback goes to the new URL too.
    expect(await callbackWhen(chainApp.api, eventId, moved)).toMatchObject({
      status: "delivered",
      attemptLog: [expect.objectContaining({ url: chainApp.receiver.url("/new") })],
    });
  });
});
