import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";

import { txPromises, uid, waitForLedgerStatus } from "../support/chain-e2e";

import { startTcpProxy, type TcpProxy } from "../support/tcp-proxy";
import { eventually } from "../support/test-chain";
import { useChainApp } from "../support/chain-app";

/**
 * The service (API and worker in one process) reaches PostgreSQL through a TCP proxy the test cuts
 * (new connections refused, open ones killed) and restores; the shared server itself stays up.
 * While it is cut, every route that needs the database answers an honest 503 with Retry-After and
 * readiness fails; once it is back, the same process takes writes again, and what it accepted before
 * the cut reaches the chain and its callbacks go out, without a restart.
 */

const DATABASE_PORT = 5432;

let proxy: TcpProxy;

// Before useChainApp's hooks: the proxy is up before the app starts, and closed after it stopped.
beforeAll(async () => {
  proxy = await startTcpProxy(DATABASE_PORT);
});

afterAll(async () => {
  await proxy?.close();
});

const chainApp = useChainApp({
  receiver: true,
  env: { BATCH_MAX_WAIT_MS: "100", SWEEP_INTERVAL_MS: "500", SWEEP_MIN_AGE_MS: "0" },
  app: () => ({ databasePort: proxy.port }),
});

afterEach(async () => {
  // A failed test must not leave the database unreachable for the clean-up.
  await proxy.open();
});

const sale = (eventId: string) => ({ eventId, ticketId: uid("t"), price: "2", orderTime: 1_750_000_000 });

function expectUnavailable(answer: { status: number; headers: Headers; body: any }, what: string): void {
  expect(answer.status, `${what}: ${JSON.stringify(answer.body)}`).toBe(503);
  expect(answer.body).toMatchObject({ status: "error", error: { code: "service_unavailable", message: expect.any(String) } });
  expect(Number(answer.headers.get("retry-after"))).toBeGreaterThan(0);
}

describe("PostgreSQL unreachable", () => {
  it("answers 503 with Retry-After, fails readiness, and goes on by itself once the database is back", async () => {
    const path = "/outage";
    const eventId = uid("event");
    const created = await chainApp.api.post("/api/v1/events", {
      eventId,
      ticketeerId: chainApp.ticketeerId,
      currency: "EUR",
      callbackUrl: chainApp.receiver.url(path),
    });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    // Accepted just before the cut: the worker meets the outage with them in hand.
    const before = txPromises(await chainApp.api.post("/api/v1/sold", [sale(eventId), sale(eventId), sale(eventId)]));

    await proxy.close();
    expectUnavailable(await chainApp.api.post("/api/v1/sold", [sale(eventId)]), "a write");
    expectUnavailable(await chainApp.api.get(`/api/v1/actions/${before[0]}`), "a read");
    const readiness = await chainApp.api.get("/health/ready");
    expect(readiness.status).toBe(503);
    expect(readiness.body).toMatchObject({ status: "error", error: { database: { status: "down" } } });
    // Long enough for the worker's loops (flushes, sweeps, receipts, callbacks) to meet the outage a few times.
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    expectUnavailable(await chainApp.api.post("/api/v1/sold", [sale(eventId)]), "a write later in the outage");

    await proxy.open();
    const after = await eventually(
      async () => {
        const answer = await chainApp.api.post("/api/v1/sold", [sale(eventId), sale(eventId)]);
        return answer.status === 200 ? txPromises(answer) : undefined;
      },
      20_000,
      "writes to be accepted again",
    );
    const accepted = [created.body.txPromise as string, ...before, ...after];
    await waitForLedgerStatus(chainApp.testApp, accepted, "confirmed", 60_000);
    await chainApp.receiver.waitForRequests(path, accepted.length, 30_000);
    const delivered = new Set(chainApp.receiver.requests(path).map((request) => JSON.parse(request.body).actionPromise as string));
    expect([...accepted].filter((promise) => !delivered.has(promise))).toEqual([]);
    expect((await chainApp.api.get("/health/ready")).status).toBe(200);
  }, 180_000);
});
