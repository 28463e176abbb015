import type { AddressInfo } from "node:net";

import { EventSource } from "eventsource";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { ActionEventsService } from "../../src/ledger/live/action-events.service";
import { apiClient } from "../support/api-client";
import { actionPromises, CALLBACK_URL, uid } from "../support/chain-e2e";
import { startTcpProxy, type TcpProxy } from "../support/tcp-proxy";
import { eventually } from "../support/test-chain";
import { startTestApp } from "../support/test-app";
import { startWorkerProcess, type WorkerProcess } from "../support/worker-process";
import { useChainApp } from "../support/chain-app";

/**
 * GET /api/v1/actions/events (Server-Sent Events) read with the `eventsource` package, the standard
 * EventSource client. The API runs with APP_ROLE=api in this process; every status change after
 * acceptance is made by a worker in a child process (APP_ROLE=worker) writing to a Hardhat chain, so
 * the stream can only learn of them through PostgreSQL.
 */

let worker: WorkerProcess;
const sources: EventSource[] = [];

const chainApp = useChainApp({ env: { APP_ROLE: "api" } });

beforeAll(() => {
  worker = startWorkerProcess({
    ...chainApp.sameLedgerEnv,
  });
});

afterAll(async () => {
  for (const source of sources) source.close();
  await worker?.kill();
});

interface Received {
  id: string;
  data: any;
}

/** An EventSource on the stream with the API key; what it received, and the headers of each (re)connection. */
function openStream(query: string, options: { key?: string; baseUrl?: string } = {}) {
  const received: Received[] = [];
  const connections: Record<string, string>[] = [];
  const source = new EventSource(`${options.baseUrl ?? chainApp.testApp.baseUrl}/api/v1/actions/events?${query}`, {
    fetch: (input, init) => {
      const headers = { ...(init?.headers as Record<string, string>), "x-api-key": options.key ?? chainApp.organization.key };
      connections.push(headers);
      return fetch(input, { ...init, headers });
    },
  });
  sources.push(source);
  source.addEventListener("status", (event) => received.push({ id: event.lastEventId, data: JSON.parse(event.data) }));
  return { source, received, connections };
}

/** The statuses a stream showed for one action, in order. */
const statusesOf = (received: Received[], promise: string) =>
  received.filter((entry) => entry.data.actionPromise === promise).map((entry) => entry.data.status);

/** Acceptance (waiting_broadcast) is in the answer to the request, not a change: a sale shows these. */
const SALE_PATH = ["pending", "confirmed"];

/** Waits until the stream has shown every one of these actions confirmed. */
function untilConfirmed(received: Received[], promises: string[], timeoutMs = 60_000): Promise<true> {
  return eventually(
    async () => (promises.every((promise) => statusesOf(received, promise).includes("confirmed")) ? true : undefined),
    timeoutMs,
    `${promises.length} actions confirmed on the stream`,
  );
}

async function newEvent(): Promise<{ eventId: string; promise: string }> {
  const eventId = uid("event");
  const [promise] = actionPromises(
    await chainApp.api.post("/stream", [{ action: "newEvent", data: { eventId, eventName: "Concert", currency: "EUR", callbackUrl: CALLBACK_URL } }]),
  );
  return { eventId, promise };
}

async function sell(eventId: string, count: number): Promise<{ ticketIds: string[]; promises: string[] }> {
  const ticketIds = Array.from({ length: count }, () => uid("ticket"));
  const promises = actionPromises(
    await chainApp.api.post(
      "/stream",
      ticketIds.map((ticketId) => ({ action: "soldTicket", data: { eventId, ticketId, price: "10.00", orderTime: 1_750_000_000 } })),
    ),
  );
  return { ticketIds, promises };
}

describe("live status of an event's actions", () => {
  it("streams pending → confirmed of real sales, each event's data as GET /api/v1/actions/{promise} answers", async () => {
    const { eventId, promise: eventPromise } = await newEvent();
    const stream = openStream(`eventId=${encodeURIComponent(eventId)}`);
    const { ticketIds, promises } = await sell(eventId, 3);
    await untilConfirmed(stream.received, [eventPromise, ...promises]);

    expect(statusesOf(stream.received, eventPromise)).toEqual(SALE_PATH);
    for (const [index, promise] of promises.entries()) {
      expect(statusesOf(stream.received, promise), `sale ${index}`).toEqual(SALE_PATH);
      const changes = stream.received.filter((entry) => entry.data.actionPromise === promise);
      const { updatedAt: _updatedAt, ...current } = (await chainApp.api.get(`/api/v1/actions/${promise}`)).body;
      expect(changes.at(-1)!.data).toMatchObject(current);
      expect(current).toMatchObject({ status: "confirmed", eventId, ticketId: ticketIds[index], action: "sold", requestedAs: "soldTicket" });
      expect(current.txHash).toMatch(/^0x[0-9a-f]{64}$/);
      expect(current.blockHash).toMatch(/^0x[0-9a-f]{64}$/);
      expect(changes[0].data).toMatchObject({ status: "pending", txHash: current.txHash, blockNumber: null, blockHash: null, error: null });
    }
    // Every id once, in the order sent.
    const ids = stream.received.map((entry) => entry.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(stream.connections).toHaveLength(1);
    stream.source.close();
  });

  it("resumes after a disconnect with Last-Event-ID: the changes made meanwhile arrive once, none is missed or repeated", async () => {
    const proxy: TcpProxy = await startTcpProxy((chainApp.testApp.app.getHttpServer().address() as AddressInfo).port);
    try {
      const { eventId, promise: eventPromise } = await newEvent();
      const stream = openStream(`eventId=${encodeURIComponent(eventId)}`, { baseUrl: proxy.url });
      const before = await sell(eventId, 2);
      await untilConfirmed(stream.received, [eventPromise, ...before.promises]);
      const lastBefore = stream.received.at(-1)!.id;

      // The connection is cut; sales are made and confirmed while the client is away.
      await proxy.close();
      const during = await sell(eventId, 2);
      await eventually(async () => {
        const views = await Promise.all(during.promises.map(async (promise) => (await chainApp.api.get(`/api/v1/actions/${promise}`)).body));
        return views.every((view) => view.status === "confirmed") ? true : undefined;
      });
      const countBefore = stream.received.length;
      await proxy.open();
      await untilConfirmed(stream.received, during.promises);

      expect(stream.connections.length).toBeGreaterThanOrEqual(2);
      const resumed = Object.entries(stream.connections.at(-1)!).find(([name]) => name.toLowerCase() === "last-event-id");
      expect(resumed?.[1]).toBe(lastBefore);
      for (const promise of [eventPromise, ...before.promises, ...during.promises]) expect(statusesOf(stream.received, promise)).toEqual(SALE_PATH);
      expect(stream.received.length).toBe(countBefore + during.promises.length * SALE_PATH.length);
      const ids = stream.received.map((entry) => entry.id);
      expect(new Set(ids).size).toBe(ids.length);
      stream.source.close();
    } finally {
      await proxy.close();
    }
  });
});

describe("what a stream follows", () => {
  it("a ticket's actions with ticketId, a list of promises with promises=, and nothing of another organization", async () => {
    const { eventId, promise: eventPromise } = await newEvent();
    const { ticketIds, promises } = await sell(eventId, 3);
    const byTicket = openStream(`eventId=${encodeURIComponent(eventId)}&ticketId=${encodeURIComponent(ticketIds[1])}`);
    const byPromises = openStream(`promises=${eventPromise},${promises[2]}`);
    // Another organization naming the same promises sees nothing; naming the event, it is told there is none.
    const other = await chainApp.testApp.organization();
    const stranger = openStream(`promises=${eventPromise},${promises[2]}`, { key: other.key });
    const strangerEvent = await apiClient(chainApp.testApp.baseUrl, other.key).get(`/api/v1/actions/events?eventId=${encodeURIComponent(eventId)}`);
    expect(strangerEvent.status).toBe(404);
    expect(strangerEvent.body).toEqual({ status: "error", error: { code: "event_not_found", message: expect.any(String) } });

    await untilConfirmed(byTicket.received, [promises[1]]);
    await untilConfirmed(byPromises.received, [eventPromise, promises[2]]);
    expect(new Set(byTicket.received.map((entry) => entry.data.actionPromise))).toEqual(new Set([promises[1]]));
    expect(new Set(byPromises.received.map((entry) => entry.data.actionPromise))).toEqual(new Set([eventPromise, promises[2]]));
    // A later change of the ticket reaches its stream too, as it goes on chain.
    const [update] = actionPromises(
      await chainApp.api.post("/stream", [{ action: "updateTicket", data: { ticketId: ticketIds[1], uri: "https://meta.example.com/1" } }]),
    );
    await eventually(async () => (statusesOf(byTicket.received, update).includes("confirmed") ? true : undefined));
    await eventually(async () => (stranger.source.readyState === EventSource.OPEN ? true : undefined));
    expect(stranger.received).toEqual([]);
    for (const stream of [byTicket, byPromises, stranger]) stream.source.close();
  });
});

describe("requests the stream refuses", () => {
  const get = (query: string, headers: Record<string, string> = {}, key: string | undefined = chainApp.organization.key) =>
    apiClient(chainApp.testApp.baseUrl, key).request("GET", `/api/v1/actions/events${query}`, undefined, headers);

  it("answers in the service's error format, before any event", async () => {
    const { eventId } = await newEvent();
    const many = Array.from({ length: 101 }, () => "0190f0a0-0000-7000-8000-000000000000").map((id, index) => id.slice(0, -3) + String(index).padStart(3, "0"));
    const cases: [string, Record<string, string>, number, string, string | undefined][] = [
      ["", {}, 400, "invalid_field", "eventId"],
      ["?ticketId=t-1", {}, 400, "invalid_field", "eventId"],
      ["?promises=not-a-promise", {}, 400, "invalid_field", "promises"],
      [`?promises=${many.join(",")}`, {}, 400, "invalid_field", "promises"],
      [`?eventId=${eventId}&promises=${many[0]}`, {}, 400, "invalid_field", "promises"],
      [`?eventId=${eventId}`, { "last-event-id": "yesterday" }, 400, "invalid_field", "Last-Event-ID"],
      ["?eventId=no-such-event", {}, 404, "event_not_found", undefined],
      [`?eventId=${eventId}&ticketId=no-such-ticket`, {}, 404, "ticket_not_found", undefined],
    ];
    for (const [query, headers, status, code, field] of cases) {
      const answer = await get(query, headers);
      expect(answer.status, query).toBe(status);
      expect(answer.body.status).toBe("error");
      expect(answer.body.error).toMatchObject(field === undefined ? { code } : { code, field });
    }
    // At most so many open streams per organization: the next one is rate_limited until one closes.
    const service = chainApp.testApp.app.get(ActionEventsService);
    const limit = service.maxStreamsPerOrganization;
    const other = await chainApp.testApp.organization();
    const { eventId: otherEvent } = await (async () => {
      const otherEventId = uid("event");
      const created = await apiClient(chainApp.testApp.baseUrl, other.key).post("/stream", [
        { action: "newEvent", data: { eventId: otherEventId, eventName: "Concert", currency: "EUR", callbackUrl: CALLBACK_URL } },
      ]);
      expect(created.body.data[0].status).toBe("success");
      return { eventId: otherEventId };
    })();
    service.maxStreamsPerOrganization = 2;
    try {
      const open = [openStream(`eventId=${otherEvent}`, { key: other.key }), openStream(`eventId=${otherEvent}`, { key: other.key })];
      await eventually(async () => (open.every((stream) => stream.source.readyState === EventSource.OPEN) ? true : undefined));
      const refused = await get(`?eventId=${otherEvent}`, {}, other.key);
      expect(refused.status).toBe(429);
      expect(refused.headers.get("retry-after")).toBe("2");
      expect(refused.body).toEqual({ status: "error", error: { code: "rate_limited", message: expect.any(String) } });
      // Another organization is not held back by it.
      expect((await apiClient(chainApp.testApp.baseUrl, chainApp.organization.key).request("GET", "/api/v1/actions/events?eventId=no-such-event")).status).toBe(
        404,
      );
      open[0].source.close();
      await eventually(async () => (service.openStreams <= 1 ? true : undefined));
      const controller = new AbortController();
      const accepted = await fetch(`${chainApp.testApp.baseUrl}/api/v1/actions/events?eventId=${otherEvent}`, {
        headers: { "x-api-key": other.key },
        signal: controller.signal,
      });
      expect(accepted.status).toBe(200);
      controller.abort();
      open[1].source.close();
    } finally {
      service.maxStreamsPerOrganization = limit;
    }

    const anonymous = await get(`?eventId=${eventId}`, {}, "");
    expect(anonymous.status).toBe(403);
    expect(anonymous.body).toEqual({ message: "Forbidden" });
  });
});

describe("heartbeats and shutdown", () => {
  it("sends a heartbeat comment on an idle stream", async () => {
    const service = chainApp.testApp.app.get(ActionEventsService);
    const heartbeatMs = service.heartbeatMs;
    service.heartbeatMs = 200;
    try {
      const { eventId } = await newEvent();
      const controller = new AbortController();
      const response = await fetch(`${chainApp.testApp.baseUrl}/api/v1/actions/events?eventId=${eventId}`, {
        headers: { "x-api-key": chainApp.organization.key },
        signal: controller.signal,
      });
      expect(response.status).toBe(200);
      expect(response.headers.get("content-type")).toMatch(/^text\/event-stream/);
      const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
      let text = "";
      const startedAt = Date.now();
      while (!text.includes(": heartbeat\n\n")) text += (await reader.read()).value ?? "";
      expect(Date.now() - startedAt).toBeLessThan(5_000);
      expect(text).toMatch(/^retry: \d+\n\n/);
      controller.abort();
    } finally {
      service.heartbeatMs = heartbeatMs;
    }
  });

  it("ends open streams when the application shuts down, without holding the shutdown", async () => {
    const other = await startTestApp();
    let closed = false;
    try {
      const { key, ticketeerId } = await other.organization();
      const eventId = uid("event");
      const created = await apiClient(other.baseUrl, key).post("/api/v1/events", { eventId, ticketeerId, currency: "EUR", callbackUrl: CALLBACK_URL });
      expect(created.status, JSON.stringify(created.body)).toBe(200);
      // No chain here: the event waits; a change of only its callbackUrl is final at once (no_broadcast_required).
      const updated = await apiClient(other.baseUrl, key).post("/stream", [{ action: "updateEvent", data: { eventId, callbackUrl: `${CALLBACK_URL}/v2` } }]);
      expect(updated.body.data[0].status, JSON.stringify(updated.body)).toBe("success");
      const streams = await Promise.all(
        [0, 1].map(async () => {
          const response = await fetch(`${other.baseUrl}/api/v1/actions/events?eventId=${eventId}`, { headers: { "x-api-key": key } });
          return response.body!.pipeThrough(new TextDecoderStream()).getReader();
        }),
      );
      // Each has shown the update before the shutdown begins.
      const texts = await Promise.all(
        streams.map(async (reader) => {
          let text = "";
          while (!text.includes('"status":"no_broadcast_required"')) text += (await reader.read()).value ?? "";
          return text;
        }),
      );
      expect(other.app.get(ActionEventsService).openStreams).toBe(2);
      const startedAt = Date.now();
      closed = true;
      await other.close();
      expect(Date.now() - startedAt).toBeLessThan(10_000);
      for (const [index, reader] of streams.entries()) {
        for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) texts[index] += chunk.value;
        expect(texts[index].match(/event: status\n/g)).toHaveLength(1);
      }
    } finally {
      if (!closed) await other.close();
    }
  });
});
