import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";

import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { PID_FILE } from "../../scripts/lib/playground";
import type { ApiClient } from "../support/api-client";
import { settled as settledAction } from "../support/chain-e2e";
import { type NpmStartPlayground, npmStartPlayground, PLAYGROUND_TICKETEER as TICKETEER, stopRun as stop } from "../support/npm-start-run";

/**
 * `npm start`'s playground keeps its state: the real entry (scripts/start.ts through ts-node, as the
 * start script runs it) as a child process on a data folder, ports and a `ticket_registry_test_*`
 * database of its own. Sales confirmed before a Ctrl-C (SIGINT) are there after the next start,
 * with the same transactions on the same registry, and new sales confirm; `--fresh` starts a new
 * chain with an empty ledger.
 */

let playground: NpmStartPlayground;
let api: ApiClient;
let dataDir: string;
let chainUrl: string;
const start = (...args: string[]) => playground.start(...args);

beforeAll(async () => {
  playground = await npmStartPlayground("playground-restart");
  ({ api, dataDir } = playground);
  chainUrl = `http://127.0.0.1:${playground.ports.chain}`;
});

afterAll(async () => {
  for (const run of playground?.runs ?? []) await stop(run, "SIGKILL");
  // A chain left behind by a run that was killed: its process id is in the data folder.
  const pidFile = join(dataDir, PID_FILE);
  if (existsSync(pidFile) && (await rpc("eth_chainId", []).catch(() => undefined)) !== undefined) {
    process.kill(Number(readFileSync(pidFile, "utf8")), "SIGKILL");
  }
  await playground?.dispose();
}, 60_000);

async function rpc<T>(method: string, params: unknown[]): Promise<T> {
  const response = await fetch(chainUrl, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
  });
  return ((await response.json()) as { result: T }).result;
}

/** The action's status once final (30 s at most). */
function settled(promise: string): Promise<{ status: string; txHash: string | null; blockNumber: number | null }> {
  return settledAction(api, promise, 30_000);
}

/** Creates an event and sells a ticket of it; both promises once confirmed. */
async function eventWithSale(eventId: string, ticketId: string) {
  const created = await api.post("/api/v1/events", {
    eventId,
    ticketeerId: TICKETEER,
    eventName: "Concert",
    currency: "EUR",
    callbackUrl: "https://integrator.example.com/callbacks",
  });
  expect(created.status).toBe(200);
  const sold = await sale(eventId, ticketId);
  const event = await settled(created.body.txPromise);
  expect(event.status).toBe("confirmed");
  return { eventPromise: created.body.txPromise as string, event, ...sold };
}

async function sale(eventId: string, ticketId: string) {
  const sold = await api.post("/api/v1/sold", [{ eventId, ticketId, orderTime: 1_750_000_000, price: "10.00" }]);
  expect(sold.status).toBe(200);
  const salePromise = sold.body[0].txPromise as string;
  const confirmed = await settled(salePromise);
  expect(confirmed.status, JSON.stringify(confirmed)).toBe("confirmed");
  return { salePromise, sale: confirmed };
}

describe("npm start's playground across restarts", () => {
  it("keeps the chain and the ledger over a Ctrl-C and a restart, and starts both anew with --fresh", { timeout: 240_000 }, async () => {
    // First start: a new chain, the registry deployed, an empty ledger.
    let run = await start();
    expect(run.output()).toContain("new state");
    const registry = (await api.get("/api/v1/chain")).body.registryAddress as string;
    expect(registry).toMatch(/^0x[0-9a-fA-F]{40}$/);
    const before = await eventWithSale("ev-kept", "t-kept");
    expect(before.sale.txHash).toMatch(/^0x[0-9a-f]{64}$/);

    // Ctrl-C: the service stops, then Anvil writes its state; a clean exit, nothing left listening.
    expect(await stop(run, "SIGINT")).toEqual({ code: 0, signal: null });
    await expect(rpc("eth_chainId", [])).rejects.toThrow();
    expect(existsSync(join(dataDir, "chain-state.json"))).toBe(true);

    // Second start: the same chain and registry, the same ledger.
    run = await start();
    expect(run.output()).toContain("state kept");
    expect((await api.get("/api/v1/chain")).body.registryAddress).toBe(registry);
    expect((await api.get("/api/v1/events/ev-kept")).status).toBe(200);
    const ticket = await api.get("/api/v1/tickets/t-kept");
    expect(ticket.status).toBe(200);
    expect(ticket.body.chain.minted).toBe(true);
    const action = await api.get(`/api/v1/actions/${before.salePromise}`);
    expect(action.body).toMatchObject({ status: "confirmed", txHash: before.sale.txHash, blockNumber: before.sale.blockNumber });
    expect((await api.get(`/api/v1/actions/${before.eventPromise}`)).body).toMatchObject({ status: "confirmed", txHash: before.event.txHash });
    expect(await rpc<{ status: string } | null>("eth_getTransactionReceipt", [before.sale.txHash])).toMatchObject({ status: "0x1" });
    const after = await sale("ev-kept", "t-after-restart");
    expect(after.sale.blockNumber).toBeGreaterThan(before.sale.blockNumber ?? 0);
    expect(await stop(run, "SIGINT")).toEqual({ code: 0, signal: null });

    // --fresh: a new chain (the old transactions are not on it) and an empty ledger.
    run = await start("--fresh");
    expect(run.output()).toContain("new state");
    expect(await rpc("eth_getTransactionReceipt", [before.sale.txHash])).toBeNull();
    expect((await api.get("/api/v1/tickets/t-kept")).status).toBe(404);
    expect((await api.get(`/api/v1/actions/${before.salePromise}`)).status).toBe(404);
    await eventWithSale("ev-fresh", "t-fresh");
    expect(await stop(run, "SIGINT")).toEqual({ code: 0, signal: null });
  });
});
