import { describe, expect, it } from "vitest";

import { apiClient } from "../support/api-client";
import { type Api, callbackWhen, eventually, eventWithTickets, requestsFor, uid } from "../support/callbacks-e2e";
import { useChainApp } from "../support/chain-app";

/**
 * POST /api/v1/callbacks/redeliver for an integrator whose receiver was down: the real app delivers
 * to a local HTTPS receiver (retry schedule shrunk a hundredfold) from a Hardhat chain's confirmations.
 * The receiver answers 410 while "down", which fails a callback at once (no retries to wait for).
 */

const chainApp = useChainApp({ receiver: true, env: { CALLBACK_TIMEOUT_MS: "2000", CALLBACK_LEASE_MS: "5000" } });

const redeliver = (body: unknown, client: Api = chainApp.api) => client.post("/api/v1/callbacks/redeliver", body);
const settle = () => new Promise((resolve) => setTimeout(resolve, 1_000));

/** An event with `count` sold tickets whose callbacks all went to a receiver that was down (410): all failed. */
async function failedEvent(path: string, count: number): Promise<{ eventId: string; promises: string[] }> {
  chainApp.receiver.script(path, [], { status: 410 });
  const { eventId, promises } = await eventWithTickets(chainApp.api, chainApp.receiver.url(path), count);
  for (const promise of promises) await callbackWhen(chainApp.api, eventId, promise, (view) => view.status === "failed");
  chainApp.receiver.script(path, [], { status: 204 });
  return { eventId, promises };
}

describe("bulk redelivery after the receiver was down", () => {
  it("queues the event's failed callbacks once, even when asked twice at the same time; each is delivered once more, with its webhook-id", async () => {
    const path = "/was-down";
    const { eventId, promises } = await failedEvent(path, 3);
    const other = await failedEvent("/other-event", 1);
    const firstIds = new Map(promises.map((promise) => [promise, requestsFor(chainApp.receiver.requests(path), promise)[0].headers["webhook-id"]]));

    const answers = await Promise.all([redeliver({ eventId, status: "failed" }), redeliver({ eventId, status: "failed" })]);
    for (const answer of answers) expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    expect(answers[0].body.queued + answers[1].body.queued).toBe(promises.length);
    expect(answers.map((answer) => answer.body.inFlight)).toEqual([0, 0]);

    for (const promise of promises) {
      const view = await callbackWhen(chainApp.api, eventId, promise, (candidate) => candidate.status === "delivered");
      expect(view.attempts).toBe(1);
      expect(view.lastStatusCode).toBe(204);
    }
    await settle();
    for (const promise of promises) {
      const requests = requestsFor(chainApp.receiver.requests(path), promise);
      expect(requests.map((request) => request.reply.status ?? 204)).toEqual([410, 204]);
      expect(requests[1].headers["webhook-id"]).toBe(firstIds.get(promise));
    }
    // The other event's callback was not in the filter: still failed, never sent again.
    expect(requestsFor(chainApp.receiver.requests("/other-event"), other.promises[0])).toHaveLength(1);
    expect((await callbackWhen(chainApp.api, other.eventId, other.promises[0])).status).toBe("failed");

    // Nothing of the event is failed any more: asking again queues nothing.
    expect((await redeliver({ eventId, status: "failed" })).body).toEqual({ queued: 0, inFlight: 0, receiverDisabled: 0 });
  });

  it("takes delivered callbacks since a time, a list of statuses, and the default (failed and pending)", async () => {
    const path = "/since";
    const { eventId, promises } = await failedEvent(path, 2);
    const since = new Date().toISOString();
    expect((await redeliver({ eventId, since })).body).toEqual({ queued: 0, inFlight: 0, receiverDisabled: 0 }); // created before `since`
    expect((await redeliver({ eventId })).body).toEqual({ queued: promises.length, inFlight: 0, receiverDisabled: 0 }); // failed by default
    for (const promise of promises) await callbackWhen(chainApp.api, eventId, promise, (view) => view.status === "delivered");

    const before = new Date(Date.now() - 60 * 60 * 1000).toISOString();
    const again = await redeliver({ eventId, status: ["delivered", "failed"], since: before });
    expect(again.body).toEqual({ queued: promises.length, inFlight: 0, receiverDisabled: 0 });
    await eventually(async () => (promises.every((promise) => requestsFor(chainApp.receiver.requests(path), promise).length === 3) ? true : undefined));
    await settle();
    for (const promise of promises) expect(requestsFor(chainApp.receiver.requests(path), promise)).toHaveLength(3);
  });

  it("leaves a callback that is being delivered right now to finish: counted as in flight, not sent twice at once", async () => {
    const path = "/slow";
    chainApp.receiver.script(path, [{ status: 204, delayMs: 1_500 }]);
    const { eventId, promises } = await eventWithTickets(chainApp.api, chainApp.receiver.url(path), 0);
    await chainApp.receiver.waitForRequests(path, 1);
    expect((await redeliver({ eventId, status: ["pending", "failed"] })).body).toEqual({ queued: 0, inFlight: 1, receiverDisabled: 0 });
    await callbackWhen(chainApp.api, eventId, promises[0], (view) => view.status === "delivered");
    await settle();
    expect(chainApp.receiver.requests(path)).toHaveLength(1);
  });

  it("touches only the organization's own callbacks", async () => {
    const path = "/tenancy";
    const { eventId, promises } = await failedEvent(path, 1);
    const stranger = apiClient(chainApp.testApp.baseUrl, (await chainApp.testApp.organization()).key);
    expect((await redeliver({}, stranger)).body).toEqual({ queued: 0, inFlight: 0, receiverDisabled: 0 });
    expect((await redeliver({ eventId, status: ["failed", "delivered", "pending"] }, stranger)).body).toEqual({ queued: 0, inFlight: 0, receiverDisabled: 0 });
    await settle();
    expect(requestsFor(chainApp.receiver.requests(path), promises[0])).toHaveLength(1);
    expect((await callbackWhen(chainApp.api, eventId, promises[0])).status).toBe("failed");
  });
});

describe("filters the endpoint refuses", () => {
  it("answers 400 in the service's error format", async () => {
    const cases: [unknown, string, string | undefined][] = [
      [[{ eventId: "x" }], "invalid_body", undefined],
      ["failed", "invalid_body", undefined],
      [{ status: "bogus" }, "invalid_field", "status"],
      [{ status: [] }, "invalid_field", "status"],
      [{ status: ["failed", 3] }, "invalid_field", "status"],
      [{ eventId: 42 }, "invalid_field", "eventId"],
      [{ eventId: "x".repeat(256) }, "invalid_field", "eventId"],
      [{ since: "yesterday" }, "invalid_field", "since"],
      [{ since: "2026-11-23" }, "invalid_field", "since"],
      [{ since: "2026-13-45T10:00:00Z" }, "invalid_field", "since"],
    ];
    for (const [body, code, field] of cases) {
      const answer = await redeliver(typeof body === "string" ? JSON.stringify(body) : body);
      expect(answer.status, JSON.stringify(body)).toBe(400);
      expect(answer.body).toEqual({
        status: "error",
        error: field === undefined ? { code, message: expect.any(String) } : { code, field, message: expect.any(String) },
      });
    }
    const malformed = await chainApp.api.request("POST", "/api/v1/callbacks/redeliver", "{not json");
    expect(malformed.status).toBe(400);
    expect(malformed.body.error.code).toBe("invalid_json");
    const anonymous = await apiClient(chainApp.testApp.baseUrl).post("/api/v1/callbacks/redeliver", { eventId: uid("event") });
    expect(anonymous.status).toBe(403);
    expect(anonymous.body).toEqual({ message: "Forbidden" });
  });
});
