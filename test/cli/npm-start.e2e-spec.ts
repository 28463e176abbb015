import { existsSync } from "node:fs";
import { join } from "node:path";

import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { PID_FILE } from "../../scripts/lib/playground";
import { acceptsConnections } from "../../scripts/stack/ports";
import type { ApiClient } from "../support/api-client";
import { settled as settledAction } from "../support/chain-e2e";
import { alive, type NpmStartPlayground, npmStartPlayground, type NpmStartRun, PLAYGROUND_TICKETEER as TICKETEER } from "../support/npm-start-run";
import { eventually } from "../support/test-chain";

/**
 * `npm start` runs the api and the worker as two processes: the real entry (scripts/start.ts
 * through the TypeScript runner, as the start script runs it) as a child process on a data folder, ports and a
 * `ticket_registry_test_*` database of its own. Both come up, an action confirms on the playground
 * chain, Ctrl-C (SIGINT) stops both and the chain with exit code 0 and leaves no process behind; a
 * process that dies unasked is named and the rest stopped (exit code 1); a SIGKILL of `npm start`
 * itself leaves nothing running either; `--single-process` runs the service in one process as before.
 */

const SPLIT_LINE = /\[start\] api \(pid (\d+), port \d+, operations endpoints on port \d+\) and worker \(pid (\d+), operations endpoints on port \d+\)/;

type Run = NpmStartRun;

let playground: NpmStartPlayground;
let api: ApiClient;
let apiKey: string;
let dataDir: string;
let ports: NpmStartPlayground["ports"];
const start = (...args: string[]) => playground.start(...args);

beforeAll(async () => {
  playground = await npmStartPlayground("npm-start", { LOG_LEVEL: "info" });
  ({ api, apiKey, dataDir, ports } = playground);
});

afterAll(async () => {
  for (const run of playground?.runs ?? []) for (const pid of servicePids(run)) if (alive(pid)) process.kill(pid, "SIGKILL");
  await playground?.dispose();
}, 60_000);

/** The api's and the worker's process ids as `npm start` printed them (none with --single-process). */
function servicePids(run: Run): number[] {
  const match = SPLIT_LINE.exec(run.output());
  return match ? [Number(match[1]), Number(match[2])] : [];
}

/** The service's JSON log lines in the output. */
function logLines(run: Run): { pid: number; role: string; msg: string }[] {
  return run
    .output()
    .split("\n")
    .filter((line) => line.startsWith("{"))
    .map((line) => JSON.parse(line) as { pid: number; role: string; msg: string });
}

/**
 * Nothing of the run is left: the given processes gone, nothing listening on the ports, and, after
 * a stop by npm start (not when it was killed), no chain process id left in the data folder.
 */
async function expectNothingLeft(pids: number[], { stoppedByNpmStart = true } = {}): Promise<void> {
  for (const pid of pids) expect(alive(pid), `process ${pid} is still running`).toBe(false);
  for (const port of [ports.api, ports.ops, ports.worker, ports.chain])
    expect(await acceptsConnections(port), `something still listens on ${port}`).toBe(false);
  if (stoppedByNpmStart) expect(existsSync(join(dataDir, PID_FILE))).toBe(false);
}

/** The action's status once final (30 s at most). */
function settled(promise: string): Promise<{ status: string; txHash: string | null; blockNumber: number | null }> {
  return settledAction(api, promise, 30_000);
}

/** Creates an event and sells a ticket of it; expects both to confirm on chain. */
async function eventWithSale(eventId: string, ticketId: string): Promise<void> {
  const created = await api.post("/api/v1/events", {
    eventId,
    ticketeerId: TICKETEER,
    eventName: "Concert",
    currency: "EUR",
    callbackUrl: "https://integrator.example.com/callbacks",
  });
  expect(created.status).toBe(200);
  const sold = await api.post("/api/v1/sold", [{ eventId, ticketId, orderTime: 1_750_000_000, price: "10.00" }]);
  expect(sold.status).toBe(200);
  expect((await settled(created.body.txPromise)).status).toBe("confirmed");
  const sale = await settled(sold.body[0].txPromise);
  expect(sale.status, JSON.stringify(sale)).toBe("confirmed");
  expect(sale.txHash).toMatch(/^0x[0-9a-f]{64}$/);
}

describe("npm start", () => {
  it("runs the api and the worker as two processes; Ctrl-C stops both and the chain, exit code 0, nothing left", { timeout: 240_000 }, async () => {
    const run = await start();
    const [apiPid, workerPid] = servicePids(run);
    expect(apiPid).toBeGreaterThan(0);
    expect(workerPid).toBeGreaterThan(0);
    expect(new Set([apiPid, workerPid, run.child.pid]).size).toBe(3);
    expect(alive(apiPid) && alive(workerPid) && alive(run.chainPid)).toBe(true);

    // Each process logs under its role: the api serves the API, the worker only its operations endpoints.
    const lines = logLines(run);
    expect(lines.find((line) => line.msg.startsWith("api role listening"))).toMatchObject({ pid: apiPid, role: "api" });
    expect(lines.find((line) => line.msg.startsWith("worker role started"))).toMatchObject({ pid: workerPid, role: "worker" });
    expect((await api.get("/api/v1/chain")).status).toBe(200);
    expect((await fetch(`http://127.0.0.1:${ports.worker}/api/v1/chain`, { headers: { "x-api-key": apiKey } })).status).toBe(404);
    // The api's metrics on its operations port (OPS_PORT), not on its API port.
    expect((await fetch(`http://127.0.0.1:${ports.ops}/metrics`)).status).toBe(401);
    expect((await fetch(`http://127.0.0.1:${ports.api}/metrics`)).status).toBe(404);

    // The api accepts, the worker writes to the playground chain.
    await eventWithSale("ev-split", "t-split");
    expect(logLines(run).some((line) => line.role === "worker" && line.pid === workerPid)).toBe(true);

    run.child.kill("SIGINT");
    expect(await run.exited).toEqual({ code: 0, signal: null });
    expect(run.output()).toContain("[start] SIGINT: stopping the api and the worker, then the chain");
    await expectNothingLeft([apiPid, workerPid, run.chainPid]);
  });

  it("names a process that exits unexpectedly, stops the other and the chain, and exits with 1", { timeout: 240_000 }, async () => {
    const run = await start();
    const [apiPid, workerPid] = servicePids(run);
    expect(run.output()).toContain("state kept");
    process.kill(workerPid, "SIGKILL");
    expect(await run.exited).toEqual({ code: 1, signal: null });
    expect(run.output()).toContain(`[start] the worker process (pid ${workerPid}) exited unexpectedly (killed by SIGKILL): stopping the api and the chain.`);
    await expectNothingLeft([apiPid, workerPid, run.chainPid]);
  });

  it("leaves nothing behind when npm start itself is killed: the api, the worker and the chain stop on their own", { timeout: 240_000 }, async () => {
    const run = await start();
    const pids = [...servicePids(run), run.chainPid];
    run.child.kill("SIGKILL");
    expect(await run.exited).toEqual({ code: null, signal: "SIGKILL" });
    // Each has a lifeline to npm start: its end of a pipe closed, they shut down gracefully.
    await eventually(async () => (pids.some(alive) ? undefined : true), 30_000, "the api, the worker and the chain to stop");
    await expectNothingLeft(pids, { stoppedByNpmStart: false });
    expect(run.output()).not.toContain("exited unexpectedly");
  });

  it("--single-process runs the service in one process, as before", { timeout: 240_000 }, async () => {
    const run = await start("--single-process");
    expect(servicePids(run)).toEqual([]);
    expect(await acceptsConnections(ports.worker)).toBe(false);
    const lines = logLines(run);
    expect(lines.find((line) => line.msg.startsWith("all role listening"))).toMatchObject({ pid: run.child.pid, role: "all" });
    expect(new Set(lines.map((line) => line.pid))).toEqual(new Set([run.child.pid]));
    await eventWithSale("ev-single", "t-single");
    run.child.kill("SIGINT");
    expect(await run.exited).toEqual({ code: 0, signal: null });
    await expectNothingLeft([run.chainPid]);
  });
});
