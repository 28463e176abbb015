import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

import { Client } from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { PID_FILE } from "../../scripts/lib/playground";
import { apiClient, type ApiClient } from "../support/api-client";
import { eventually, freePort } from "../support/test-chain";

/**
 * `npm start` runs the api and the worker as two processes: the real entry (scripts/start.ts
 * through ts-node, as the start script runs it) as a child process on a data folder, ports and a
 * `ticket_registry_test_*` database of its own. Both come up, an action confirms on the playground
 * chain, Ctrl-C (SIGINT) stops both and the chain with exit code 0 and leaves no process behind; a
 * process that dies unasked is named and the rest stopped (exit code 1); a SIGKILL of `npm start`
 * itself leaves nothing running either; `--single-process` runs the service in one process as before.
 */

const ROOT = join(__dirname, "..", "..");
const TS_NODE = join(ROOT, "node_modules", "ts-node", "dist", "bin.js");
const SERVER_URL = process.env.TEST_DATABASE_SERVER_URL ?? "postgres://postgres@127.0.0.1:5432";
const TICKETEER = "playground";
const FINAL = ["confirmed", "error", "no_broadcast_required"];
const SPLIT_LINE = /\[start\] api \(pid (\d+), port \d+\) and worker \(pid (\d+), operations endpoints on port \d+\)/;

interface Run {
  child: ChildProcess;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  output: () => string;
  /** Anvil's process id, read from the data folder while it runs. */
  chainPid: number;
}

const dataDir = mkdtempSync(join(tmpdir(), "npm-start-"));
const databaseName = `ticket_registry_test_${randomBytes(6).toString("hex")}`;
const apiKey = `trk_starttest_${randomBytes(16).toString("hex")}`;
const runs: Run[] = [];
let env: Record<string, string>;
let api: ApiClient;
let ports: { api: number; worker: number; chain: number };

beforeAll(async () => {
  ports = { api: await freePort(), worker: await freePort(), chain: await freePort() };
  api = apiClient(`http://127.0.0.1:${ports.api}`, apiKey);
  env = {
    PLAYGROUND_DATA_DIR: dataDir,
    EMBEDDED_CHAIN_PORT: String(ports.chain),
    PORT: String(ports.api),
    WORKER_PORT: String(ports.worker),
    DATABASE_URL: `${SERVER_URL}/${databaseName}`,
    REDIS_KEY_PREFIX: `npm-start-test-${randomBytes(4).toString("hex")}`,
    DEV_TICKETEER_ID: TICKETEER,
    DEV_API_KEY: apiKey,
    CALLBACK_DELIVERY: "false",
    LOG_LEVEL: "info",
  };
});

afterAll(async () => {
  for (const run of runs) {
    if (run.child.exitCode === null && run.child.signalCode === null) run.child.kill("SIGKILL");
    for (const pid of [run.chainPid, ...servicePids(run)]) if (alive(pid)) process.kill(pid, "SIGKILL");
  }
  rmSync(dataDir, { recursive: true, force: true });
  const client = new Client({ connectionString: `${SERVER_URL}/postgres` });
  await client.connect();
  await client.query(`DROP DATABASE IF EXISTS ${databaseName} WITH (FORCE)`);
  await client.end();
}, 60_000);

/** `npm start` (with `args`), answered once the API and, when split, the worker answer /health. */
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
  const run: Run = { child, exited, output: () => output, chainPid: 0 };
  runs.push(run);
  const split = !args.includes("--single-process");
  await eventually(
    async () => {
      if (child.exitCode !== null || child.signalCode !== null) throw new Error(`npm start exited early:\n${output}`);
      const healthy = (await answersHealth(ports.api)) && (!split || (await answersHealth(ports.worker)));
      return healthy ? true : undefined;
    },
    120_000,
    "npm start to serve",
  );
  run.chainPid = Number(readFileSync(join(dataDir, PID_FILE), "utf8"));
  return run;
}

async function answersHealth(port: number): Promise<boolean> {
  return fetch(`http://127.0.0.1:${port}/health`).then(
    (answer) => answer.status === 200,
    () => false,
  );
}

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

function alive(pid: number): boolean {
  if (!pid) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, "127.0.0.1");
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}

/**
 * Nothing of the run is left: the given processes gone, nothing listening on the ports, and, after
 * a stop by npm start (not when it was killed), no chain process id left in the data folder.
 */
async function expectNothingLeft(pids: number[], { stoppedByNpmStart = true } = {}): Promise<void> {
  for (const pid of pids) expect(alive(pid), `process ${pid} is still running`).toBe(false);
  for (const port of [ports.api, ports.worker, ports.chain]) expect(await listening(port), `something still listens on ${port}`).toBe(false);
  if (stoppedByNpmStart) expect(existsSync(join(dataDir, PID_FILE))).toBe(false);
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
    expect(await listening(ports.worker)).toBe(false);
    const lines = logLines(run);
    expect(lines.find((line) => line.msg.startsWith("all role listening"))).toMatchObject({ pid: run.child.pid, role: "all" });
    expect(new Set(lines.map((line) => line.pid))).toEqual(new Set([run.child.pid]));
    await eventWithSale("ev-single", "t-single");
    run.child.kill("SIGINT");
    expect(await run.exited).toEqual({ code: 0, signal: null });
    await expectNothingLeft([run.chainPid]);
  });
});
