import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

import { Client } from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { PID_FILE } from "../../scripts/lib/playground";
import { apiClient, type ApiClient } from "../support/api-client";
import { eventually, freePort } from "../support/test-chain";

/**
 * `npm start`'s playground keeps its state: the real entry (scripts/start.ts through ts-node, as the
 * start script runs it) as a child process on a data folder, ports and a `ticket_registry_test_*`
 * database of its own. Sales confirmed before a Ctrl-C (SIGINT) are there after the next start,
 * with the same transactions on the same registry, and new sales confirm; `--fresh` starts a new
 * chain with an empty ledger.
 */

const ROOT = join(__dirname, "..", "..");
const TS_NODE = join(ROOT, "node_modules", "ts-node", "dist", "bin.js");
const SERVER_URL = process.env.TEST_DATABASE_SERVER_URL ?? "postgres://postgres@127.0.0.1:5432";
const TICKETEER = "playground";
const FINAL = ["confirmed", "error", "no_broadcast_required"];

interface Run {
  child: ChildProcess;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  output: () => string;
}

const dataDir = mkdtempSync(join(tmpdir(), "playground-restart-"));
const databaseName = `ticket_registry_test_${randomBytes(6).toString("hex")}`;
const apiKey = `trk_pgtest_${randomBytes(16).toString("hex")}`;
const runs: Run[] = [];
let env: Record<string, string>;
let api: ApiClient;
let chainUrl: string;

beforeAll(async () => {
  const [port, workerPort, chainPort] = [await freePort(), await freePort(), await freePort()];
  chainUrl = `http://127.0.0.1:${chainPort}`;
  api = apiClient(`http://127.0.0.1:${port}`, apiKey);
  env = {
    PLAYGROUND_DATA_DIR: dataDir,
    EMBEDDED_CHAIN_PORT: String(chainPort),
    PORT: String(port),
    WORKER_PORT: String(workerPort),
    DATABASE_URL: `${SERVER_URL}/${databaseName}`,
    REDIS_KEY_PREFIX: `playground-test-${randomBytes(4).toString("hex")}`,
    DEV_TICKETEER_ID: TICKETEER,
    DEV_API_KEY: apiKey,
    CALLBACK_DELIVERY: "false",
    LOG_LEVEL: "warn",
  };
});

afterAll(async () => {
  for (const run of runs) await stop(run, "SIGKILL");
  // A chain left behind by a run that was killed: its process id is in the data folder.
  const pidFile = join(dataDir, PID_FILE);
  if (existsSync(pidFile) && (await rpc("eth_chainId", []).catch(() => undefined)) !== undefined) {
    process.kill(Number(readFileSync(pidFile, "utf8")), "SIGKILL");
  }
  rmSync(dataDir, { recursive: true, force: true });
  const client = new Client({ connectionString: `${SERVER_URL}/postgres` });
  await client.connect();
  await client.query(`DROP DATABASE IF EXISTS ${databaseName} WITH (FORCE)`);
  await client.end();
}, 60_000);

/** `npm start` (with `args`), answered once it serves the API. */
async function start(...args: string[]): Promise<Run> {
  const child = spawn(process.execPath, [TS_NODE, "--transpile-only", "scripts/start.ts", ...args], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout?.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once("exit", (code, signal) => resolve({ code, signal })),
  );
  const run = { child, exited, output: () => output };
  runs.push(run);
  await eventually(
    async () => {
      if (child.exitCode !== null || child.signalCode !== null) throw new Error(`npm start exited early:\n${output}`);
      const healthy = await api.get("/health").then(
        (answer) => answer.status === 200,
        () => false,
      );
      return healthy ? true : undefined;
    },
    90_000,
    "npm start to serve",
  );
  return run;
}

/** Sends `signal` and waits for the exit. */
async function stop(run: Run, signal: NodeJS.Signals): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  if (run.child.exitCode === null && run.child.signalCode === null) run.child.kill(signal);
  return run.exited;
}

async function rpc<T>(method: string, params: unknown[]): Promise<T> {
  const response = await fetch(chainUrl, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
  });
  return ((await response.json()) as { result: T }).result;
}

async function settled(promise: string): Promise<{ status: string; txHash: string | null; blockNumber: number | null }> {
  return eventually(
    async () => {
      const answer = await api.get(`/api/v1/actions/${promise}`);
      return FINAL.includes(answer.body?.status) ? answer.body : undefined;
    },
    30_000,
    `action ${promise} to be final`,
  );
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
