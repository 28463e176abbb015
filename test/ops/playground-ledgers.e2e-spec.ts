import { readFileSync } from "node:fs";
import { join } from "node:path";

import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { ledgerKey } from "../../scripts/lib/playground-registry";
import type { ApiClient } from "../support/api-client";
import { settled } from "../support/chain-e2e";
import { type NpmStartPlayground, npmStartPlayground, PLAYGROUND_TICKETEER as TICKETEER, stopRun as stop } from "../support/npm-start-run";

/**
 * A ledger is bound to one registry, on the playground too: `npm start` with another DATABASE_URL on
 * a chain an earlier ledger wrote to deploys a registry for the new ledger and says so; the earlier
 * ledger keeps its registry, and both go on confirming.
 */

let playground: NpmStartPlayground;
let api: ApiClient;

beforeAll(async () => {
  playground = await npmStartPlayground("playground-ledgers");
  ({ api } = playground);
});

afterAll(async () => {
  for (const run of playground?.runs ?? []) await stop(run, "SIGKILL");
  await playground?.dispose();
}, 60_000);

/** A new event and a sale of it; both must confirm (the first event of a ledger, the first token of its event). */
async function eventAndSaleConfirm(eventId: string, ticketId: string): Promise<void> {
  const created = await api.post("/api/v1/events", {
    eventId,
    ticketeerId: TICKETEER,
    currency: "EUR",
    callbackUrl: "https://integrator.example.com/callbacks",
  });
  expect(created.status).toBe(200);
  const sold = await api.post("/api/v1/sold", [{ eventId, ticketId, orderTime: 1_750_000_000, price: "10.00" }]);
  expect(sold.status).toBe(200);
  const [event, sale] = await Promise.all([settled(api, created.body.txPromise, 30_000), settled(api, sold.body[0].txPromise, 30_000)]);
  expect({ event: event.status, sale: sale.status }, JSON.stringify({ event, sale })).toEqual({ event: "confirmed", sale: "confirmed" });
}

const signerIn = (output: string) => /signer (0x[0-9a-fA-F]{40})/.exec(output)?.[1];

const registryOf = async () => (await api.get("/api/v1/chain")).body.registryAddress as string;

describe("npm start's playground with several ledgers", () => {
  it("deploys a registry for a new ledger on a kept chain, and the earlier ledger keeps its own", { timeout: 300_000 }, async () => {
    let run = await playground.start();
    const first = await registryOf();
    const firstSigner = signerIn(run.output());
    await eventAndSaleConfirm("ev-first", "t-first");
    expect(await stop(run, "SIGINT")).toEqual({ code: 0, signal: null });

    // Another ledger, the same kept chain: its own registry, so its first event and sale do not collide.
    const otherDatabaseUrl = playground.otherDatabaseUrl();
    run = await playground.startWith({ DATABASE_URL: otherDatabaseUrl });
    expect(run.output()).toContain("state kept");
    const second = await registryOf();
    expect(second).not.toBe(first);
    expect(run.output()).toContain(`TicketRegistry ${second} (deployed now`);
    expect(run.output()).toContain(`keeps its TicketRegistry ${first}`);
    // A signer of its own too: the first ledger's signer nonces must not move on behind its back.
    expect(signerIn(run.output())).toMatch(/^0x/);
    expect(signerIn(run.output())).not.toBe(firstSigner);
    await eventAndSaleConfirm("ev-second", "t-second");
    expect(await stop(run, "SIGINT")).toEqual({ code: 0, signal: null });

    const records = JSON.parse(readFileSync(join(playground.dataDir, "registry.json"), "utf8"));
    expect(Object.values(records.registries).map((record: any) => record.address)).toEqual([first, second]);
    expect(records.registries[ledgerKey(otherDatabaseUrl)].address).toBe(second);

    // The first ledger again: its registry, its tickets, and it goes on.
    run = await playground.start();
    expect(await registryOf()).toBe(first);
    expect((await api.get("/api/v1/tickets/t-first")).body.chain.minted).toBe(true);
    await eventAndSaleConfirm("ev-first-again", "t-first-again");
    expect(await stop(run, "SIGINT")).toEqual({ code: 0, signal: null });
  });
});
