import { type ChildProcess, spawn } from "node:child_process";
import { join } from "node:path";

import type { INestApplicationContext } from "@nestjs/common";
import { NestFactory } from "@nestjs/core";
import { DataSource } from "typeorm";
import { afterAll, describe, expect, it } from "vitest";

import { AppModule } from "../../src/app.module";
import { loadConfig } from "../../src/config/app-config";

import {
  DELIVERY_ENV,
  callbackOf,
  callbackWhen,
  eventually,
  eventWithTickets,
  requestsFor,
  updateTicketOf,
  updateTickets,
  verifyCallback,
} from "../support/callbacks-e2e";
import { useChainApp } from "../support/chain-app";
import { TYPESCRIPT_RUNNER_ARGS } from "../../scripts/stack/typescript-runner";

/**
 * A worker killed (SIGKILL) while a receiver holds its request loses no callback: the lease it took
 * runs out and another worker on the same database delivers it, with the same webhook-id. The
 * killed worker is a real process of the service's worker role; the API app (with the chain writer)
 * delivers nothing itself.
 */
const ROOT = join(__dirname, "..", "..");
const LEASE_MS = 3_000;
const TIMEOUT_MS = 2_500;

const started: { stop: () => Promise<void> }[] = [];

// CALLBACK_DELIVERY=false: only the workers below deliver. The API takes the receiver's localhost
// callbackUrl only with the workers' CALLBACK_ALLOW_HOSTS (callbackUrls are checked at acceptance).
const chainApp = useChainApp({ receiver: true, env: { CALLBACK_DELIVERY: "false", CALLBACK_ALLOW_HOSTS: "localhost" } });

afterAll(async () => {
  for (const worker of started.reverse()) await worker.stop();
});

/** The delivery settings of both workers: short lease, poll often; the database and Redis of the test app; no chain writer. */
const workerEnv = () => ({
  ...DELIVERY_ENV,
  APP_MODE: "test",
  DATABASE_URL: chainApp.testApp.databaseUrl,
  REDIS_KEY_PREFIX: chainApp.testApp.config.redis.keyPrefix,
  CALLBACK_LEASE_MS: String(LEASE_MS),
  CALLBACK_TIMEOUT_MS: String(TIMEOUT_MS),
  LOG_LEVEL: "error",
});

/** `node src/main.ts` in the worker role, as deployed; it inherits NODE_EXTRA_CA_CERTS from the test process. */
function startWorkerProcess(): { child: ChildProcess; output: () => string; kill: () => Promise<void> } {
  const env: NodeJS.ProcessEnv = { ...process.env, ...workerEnv(), APP_ROLE: "worker", MIGRATE_AT_BOOT: "false" };
  for (const name of ["CHAIN_RPC_URL", "REGISTRY_ADDRESS", "SIGNER_PRIVATE_KEYS"]) delete env[name];
  const child = spawn(process.execPath, [...TYPESCRIPT_RUNNER_ARGS, "src/main.ts"], { cwd: ROOT, env, stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  child.stdout?.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise((resolve) => child.once("exit", resolve));
  const kill = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    await exited;
  };
  started.push({ stop: kill });
  return { child, output: () => output, kill };
}

/** A second worker in this process (the same module wiring as the worker role), on the same database. */
async function startWorkerInProcess(): Promise<INestApplicationContext> {
  const worker = await NestFactory.createApplicationContext(AppModule.forConfig(loadConfig({ ...workerEnv(), APP_ROLE: "worker", MIGRATE_AT_BOOT: "false" })), {
    logger: ["error"],
  });
  const close = worker.close.bind(worker);
  let closing: Promise<void> | undefined;
  worker.close = () => (closing ??= close());
  started.push({ stop: () => worker.close() });
  return worker;
}

describe("a worker killed mid-delivery", () => {
  it("loses no callback: after its lease, another worker delivers it with the same webhook-id", async () => {
    const path = "/crash";
    const { eventId, ticketIds, promises: setup } = await eventWithTickets(chainApp.api, chainApp.receiver.url(path), 1);
    chainApp.receiver.script(path, [{ hang: true }], {}, updateTicketOf(ticketIds[0]));
    const [promise] = await updateTickets(chainApp.api, ticketIds);

    const first = startWorkerProcess();
    const [held] = await eventually(
      async () => {
        if (first.child.exitCode !== null) throw new Error(`the worker exited: ${first.output()}`);
        const requests = requestsFor(chainApp.receiver.requests(path), promise);
        return requests.length > 0 ? requests : undefined;
      },
      60_000,
      "the worker process to send the callback",
    );
    await first.kill();
    const killedAt = Date.now();

    // The dead worker's lease still holds the callback; nothing recorded its attempt.
    const sql = chainApp.testApp.app.get(DataSource);
    const [row] = await sql.query(`SELECT status, attempts, leased_until FROM callbacks WHERE action_id = $1`, [promise]);
    expect(row).toMatchObject({ status: "pending", attempts: 0 });
    expect(row.leased_until.getTime()).toBeGreaterThan(Date.now());
    // Its other callbacks (the event's and the sale's, before it) were delivered and recorded.
    for (const earlier of setup) expect(await callbackOf(chainApp.api, eventId, earlier)).toMatchObject({ status: "delivered", attempts: 1 });

    const second = await startWorkerInProcess();
    const view = await callbackWhen(chainApp.api, eventId, promise, (candidate) => candidate.status === "delivered", 20_000);
    const requests = requestsFor(chainApp.receiver.requests(path), promise);
    expect(requests).toHaveLength(2);
    expect(requests[1].receivedAt).toBeGreaterThanOrEqual(row.leased_until.getTime() - 50); // not before the lease ran out
    expect(requests[1].receivedAt - killedAt).toBeLessThan(LEASE_MS + 5_000);
    expect(requests.map((request) => request.headers["webhook-id"])).toEqual([view.callbackId, view.callbackId]);
    expect(requests[1].body).toBe(held.body);
    verifyCallback(requests[1], chainApp.organization.webhookSecret);
    expect(view).toMatchObject({ status: "delivered", attempts: 1, lastStatusCode: 204 });
    await second.close();
  });

  it("a worker stopped gracefully lets its deliveries in flight finish and records them", async () => {
    const path = "/graceful";
    const worker = await startWorkerInProcess();
    const { eventId, ticketIds } = await eventWithTickets(chainApp.api, chainApp.receiver.url(path), 1);
    await eventually(async () => (chainApp.receiver.requests(path).length === 2 ? true : undefined)); // the event's and the sale's callbacks
    chainApp.receiver.script(path, [{ delayMs: 1_000 }], {}, updateTicketOf(ticketIds[0]));
    const [promise] = await updateTickets(chainApp.api, ticketIds);
    await eventually(async () => (requestsFor(chainApp.receiver.requests(path), promise).length === 1 ? true : undefined));

    await worker.close();
    const [request] = requestsFor(chainApp.receiver.requests(path), promise);
    expect(request.answeredAt).toBeDefined();
    expect(await callbackOf(chainApp.api, eventId, promise)).toMatchObject({ status: "delivered", attempts: 1, lastStatusCode: 204 });
  });
});
