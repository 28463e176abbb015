import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { callbackOf, callbackWhen, eventually, eventWithTickets, requestsFor, updateTickets } from "../support/callbacks-e2e";
import { type HttpsReceiver, startHttpsReceiver } from "../support/https-receiver";
import { useChainApp } from "../support/chain-app";

/**
 * One receiver gets at most half of CALLBACK_CONCURRENCY: here 4 slots, so a receiver that hangs on
 * more callbacks than there are slots holds 2, and another receiver's callbacks still go out at once.
 */
const TIMEOUT_MS = 3_000;

let fastReceiver: HttpsReceiver;

const chainApp = useChainApp({
  receiver: true,
  env: { CALLBACK_CONCURRENCY: "4", CALLBACK_TIMEOUT_MS: String(TIMEOUT_MS), CALLBACK_LEASE_MS: "10000" },
});

beforeAll(async () => {
  fastReceiver = await startHttpsReceiver();
});

afterAll(async () => {
  await fastReceiver?.close();
});

describe("a receiver's share of the delivery slots", () => {
  it("does not let a receiver with more hanging callbacks than slots hold back another receiver", async () => {
    const [slow, fast] = await Promise.all([
      eventWithTickets(chainApp.api, chainApp.receiver.url("/hooks"), 5),
      eventWithTickets(chainApp.api, fastReceiver.url("/hooks"), 3),
    ]);
    await Promise.all([
      ...slow.promises.map((promise) => callbackWhen(chainApp.api, slow.eventId, promise)),
      ...fast.promises.map((promise) => callbackWhen(chainApp.api, fast.eventId, promise)),
    ]);
    chainApp.receiver.script("/hooks", [], { hang: true }, (body) => body?.action === "updateTicket");

    const slowPromises = await updateTickets(chainApp.api, slow.ticketIds);
    const hanging = await eventually(async () => {
      const requests = slowPromises.flatMap((promise) => requestsFor(chainApp.receiver.requests("/hooks"), promise));
      return requests.length >= 2 ? requests : undefined;
    });
    const fastPromises = await updateTickets(chainApp.api, fast.ticketIds);
    const delivered = await Promise.all(fastPromises.map((promise) => callbackWhen(chainApp.api, fast.eventId, promise)));
    const slowSeen = slowPromises.flatMap((promise) => requestsFor(chainApp.receiver.requests("/hooks"), promise));
    const slowViews = await Promise.all(slowPromises.map((promise) => callbackOf(chainApp.api, slow.eventId, promise)));
    // All of that within the slow receiver's first hold, before any of its requests could time out.
    expect(Date.now()).toBeLessThan(Math.min(...hanging.map((request) => request.receivedAt)) + TIMEOUT_MS);
    expect(delivered.map((view) => view.status)).toEqual(["delivered", "delivered", "delivered"]);
    expect(slowSeen).toHaveLength(2);
    expect(slowViews.map((view) => [view.status, view.attempts])).toEqual(Array(5).fill(["pending", 0]));
  });
});
