import { afterAll, describe, expect, it } from "vitest";

import { apiClient } from "../support/api-client";
import { CALLBACK_URL, eventIndexOf, mints, txPromises, uid, waitForLedgerStatus } from "../support/chain-e2e";
import { eventually, freePort } from "../support/test-chain";

import { startWorkerProcess, type WorkerProcess } from "../support/worker-process";
import { useChainApp } from "../support/chain-app";

/**
 * SIGTERM under load. The service (APP_ROLE=all, a real child process) takes sales from four
 * concurrent clients while it writes them to the chain; it is sent SIGTERM mid-flow. It must leave
 * readiness first, answer what it took, exit on its own, and lose nothing it accepted: a worker
 * started afterwards confirms every accepted sale, each minted exactly once.
 *
 * The in-process app (APP_ROLE=api) only provides the database, an API key and ledger queries.
 */

const CLIENTS = 4;
const TICKETS_PER_REQUEST = 10;
const SALES_BEFORE_SIGTERM = 200;

const processes: WorkerProcess[] = [];

const chainApp = useChainApp({ env: { APP_ROLE: "api" } });

afterAll(async () => {
  for (const child of processes) await child.kill();
});

function startService(env: Record<string, string>): WorkerProcess {
  const child = startWorkerProcess({
    ...chainApp.sameLedgerEnv,
    BATCH_MAX_WAIT_MS: "100",
    SWEEP_INTERVAL_MS: "500",
    SWEEP_MIN_AGE_MS: "0",
    ...env,
  });
  processes.push(child);
  return child;
}

interface Load {
  accepted: { ticketIds: string[]; promises: string[] };
  /** HTTP answers other than 200: none may happen, a refused connection is the only way to say no. */
  unexpected: string[];
  stop: () => Promise<void>;
}

/** Clients that keep selling tickets until the service stops answering. */
function sellUntilRefused(baseUrl: string, key: string, eventId: string): Load {
  const api = apiClient(baseUrl, key);
  const load: Load = { accepted: { ticketIds: [], promises: [] }, unexpected: [], stop: async () => undefined };
  let stopped = false;
  const client = async () => {
    while (!stopped) {
      const ticketIds = Array.from({ length: TICKETS_PER_REQUEST }, () => uid("t"));
      const items = ticketIds.map((ticketId, index) => ({ eventId, ticketId, price: "5", orderTime: 1_750_000_000 + index }));
      let answer;
      try {
        answer = await api.post("/api/v1/sold", items);
      } catch {
        return; // the server has closed: nothing more is taken
      }
      if (answer.status !== 200) {
        load.unexpected.push(`${answer.status} ${JSON.stringify(answer.body)}`);
        continue;
      }
      load.accepted.promises.push(...txPromises(answer));
      load.accepted.ticketIds.push(...ticketIds);
    }
  };
  const clients = Array.from({ length: CLIENTS }, client);
  load.stop = async () => {
    stopped = true;
    await Promise.all(clients);
  };
  return load;
}

describe("SIGTERM under load", () => {
  it("drains readiness, answers what it accepted, exits, and every accepted action is confirmed once", async () => {
    const { key, ticketeerId } = await chainApp.testApp.organization();
    const port = await freePort();
    const baseUrl = `http://127.0.0.1:${port}`;
    const service = startService({ APP_ROLE: "all", PORT: String(port), SHUTDOWN_GRACE_MS: "1500", LOG_LEVEL: "info" });
    await eventually(async () => ((await fetch(`${baseUrl}/health/ready`).catch(() => null))?.ok ? true : undefined), 60_000, "the service to be ready");

    const eventId = uid("event");
    const created = await apiClient(baseUrl, key).post("/api/v1/events", { eventId, ticketeerId, currency: "EUR", callbackUrl: CALLBACK_URL });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    const load = sellUntilRefused(baseUrl, key, eventId);
    await eventually(async () => (load.accepted.ticketIds.length >= SALES_BEFORE_SIGTERM ? true : undefined), 60_000, "sales to flow");

    service.child.kill("SIGTERM");
    const readiness = await eventually(
      async () => {
        const answer = await fetch(`${baseUrl}/health/ready`).catch(() => null);
        return answer?.status === 503 ? answer.json() : undefined;
      },
      10_000,
      "readiness to drop",
    );
    expect(readiness).toMatchObject({ status: "shutting_down" });

    const exit = await Promise.race([service.exited, new Promise((resolve) => setTimeout(() => resolve("still running"), 60_000))]);
    await load.stop();
    expect(exit, service.output()).not.toBe("still running");
    expect(exit).not.toEqual({ code: null, signal: "SIGKILL" });
    expect(service.output()).toContain("SIGTERM: leaving readiness");
    expect(service.output()).toContain("SIGTERM: stopped");
    expect(load.unexpected).toEqual([]);

    const accepted = [created.body.txPromise as string, ...load.accepted.promises];
    startService({ APP_ROLE: "worker" });
    await waitForLedgerStatus(chainApp.testApp, accepted, "confirmed", 120_000);
    const eventIndex = await eventIndexOf(chainApp.testApp, eventId);
    const minted = (await mints(chainApp.chain)).filter((mint) => mint.tokenId >> 64n === eventIndex);
    expect(minted).toHaveLength(load.accepted.ticketIds.length);
    expect(new Set(minted.map((mint) => mint.tokenId)).size).toBe(minted.length);
    expect((await chainApp.chain.registry.eventRecord(eventIndex)).ticketsSold).toBe(BigInt(load.accepted.ticketIds.length));
  }, 240_000);
});
