import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";

import { Contract, Interface, JsonRpcProvider, Network } from "ethers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { PID_FILE } from "../../scripts/lib/playground";
import type { ApiClient } from "../support/api-client";
import { settled as settledAction } from "../support/chain-e2e";
import { WALLET } from "../support/fixtures";
import { type NpmStartPlayground, npmStartPlayground, PLAYGROUND_TICKETEER as TICKETEER, stopRun as stop } from "../support/npm-start-run";

/**
 * `npm start`'s playground keeps its state: the real entry (scripts/start.ts through the TypeScript runner, as the
 * start script runs it) as a child process on a data folder, ports and a `ticket_registry_test_*`
 * database of its own. Sales confirmed before a Ctrl-C (SIGINT) are there after the next start,
 * with the same transactions on the same registry, and new sales confirm; `--fresh` starts a new
 * chain with an empty ledger. A ticket claimed on the playground shows in a wallet: its tokenURI leads
 * to the playground's own metadata, and a kept registry's URIs are pointed back at the playground.
 */

let playground: NpmStartPlayground;
let api: ApiClient;
let dataDir: string;
let chainUrl: string;
let publicBaseUrl: string;

/** Anvil's development account #0: it deploys the playground's registry and administers it. */
const ADMIN = "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266";
const SET_BASE_URI = new Interface(["function setBaseURI(string)"]);
const start = (...args: string[]) => playground.start(...args);

beforeAll(async () => {
  playground = await npmStartPlayground("playground-restart");
  ({ api, dataDir } = playground);
  chainUrl = `http://127.0.0.1:${playground.ports.chain}`;
  publicBaseUrl = `http://localhost:${playground.ports.api}`;
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

/** What a wallet does with a token: tokenURI from the chain, then an HTTP fetch of it. */
async function tokenAsAWalletSeesIt(tokenId: bigint): Promise<{ uri: string; metadata: any }> {
  const provider = new JsonRpcProvider(chainUrl, new Network("playground", 31337), { staticNetwork: true });
  try {
    const registry = new Contract((await api.get("/api/v1/chain")).body.registryAddress, ["function tokenURI(uint256) view returns (string)"], provider);
    const uri = (await registry.tokenURI(tokenId)) as string;
    return { uri, metadata: await (await fetch(uri)).json() };
  } finally {
    provider.destroy();
  }
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

    // A newcomer's claim: the wallet reads the token's name, image and state through tokenURI.
    const claim = await api.post("/stream", [
      { action: "updateEvent", data: { eventId: "ev-kept", imageUrl: "https://img.example.com/concert.png" } },
      { action: "scannedTicket", data: { ticketId: "t-kept" } },
      { action: "claimedTicket", data: { ticketId: "t-kept", to: WALLET } },
    ]);
    for (const entry of claim.body.data) expect((await settled(entry.actionPromise)).status).toBe("confirmed");
    const tokenId = BigInt((await api.get("/api/v1/tickets/t-kept")).body.chain.tokenId);
    const seen = await tokenAsAWalletSeesIt(tokenId);
    expect(seen.uri).toBe(`${publicBaseUrl}/tokens/${tokenId}`);
    expect(seen.metadata).toMatchObject({ name: `Concert #${tokenId & 0xffffffffffffffffn}`, image: "https://img.example.com/concert.png" });
    expect(seen.metadata.attributes).toContainEqual({ trait_type: "State", value: "Claimed" });
    // The admin (Anvil's account #0, which deployed it) points the tokens elsewhere; the next start points them back.
    await rpc("eth_sendTransaction", [
      { from: ADMIN, to: registry, data: SET_BASE_URI.encodeFunctionData("setBaseURI", ["https://elsewhere.example/tokens/"]) },
    ]);

    // Ctrl-C: the service stops, then Anvil writes its state; a clean exit, nothing left listening.
    expect(await stop(run, "SIGINT")).toEqual({ code: 0, signal: null });
    await expect(rpc("eth_chainId", [])).rejects.toThrow();
    expect(existsSync(join(dataDir, "chain-state.json"))).toBe(true);

    // Second start: the same chain and registry, the same ledger.
    run = await start();
    expect(run.output()).toContain("state kept");
    expect(run.output()).toContain(`its token URIs now at ${publicBaseUrl}`);
    expect((await api.get("/api/v1/chain")).body.registryAddress).toBe(registry);
    expect((await tokenAsAWalletSeesIt(tokenId)).uri).toBe(`${publicBaseUrl}/tokens/${tokenId}`);
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
