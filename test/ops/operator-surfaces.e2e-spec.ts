import { randomBytes } from "node:crypto";

import { getQueueToken } from "@nestjs/bull";
import type { Queue } from "bull";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { CHAIN_WRITER_QUEUE } from "../../src/chain/queue/chain-writer.queue";
import { adminHeaders, TEST_ADMIN_PASSWORD } from "../support/metrics-scrape";
import { eventually, freePort, HARDHAT_KEYS } from "../support/test-chain";
import { createTestDatabase, type TestDatabase } from "../support/test-database";
import { startTestApp, type TestApp } from "../support/test-app";
import { startWorkerProcess, type WorkerProcess } from "../support/worker-process";

/**
 * What an operator exposes: the API port and the operations port apart, the address the service
 * binds and logs, the queue dashboard that only shows unless told otherwise and takes changes only
 * from its own page, wrong admin passwords throttled per client IP, and readiness that says which
 * check failed without saying where it points.
 */
const PAUSE = "/admin/queues/api/queues/chain-writer/pause";
const RESUME = "/admin/queues/api/queues/chain-writer/resume";
const ADD = "/admin/queues/api/queues/chain-writer/add";

describe("the API port and the operations port", () => {
  let testApp: TestApp;
  beforeAll(async () => {
    testApp = await startTestApp();
  });
  afterAll(async () => testApp.close());

  it("serves metrics and the queue dashboard on the operations port only, health on both, the API on the API port only", async () => {
    const { key } = await testApp.organization();
    expect(testApp.opsUrl).not.toBe(testApp.baseUrl);
    for (const path of ["/metrics", "/admin/queues", "/admin/queues/api/queues"]) {
      const onApi = await fetch(`${testApp.baseUrl}${path}`, { headers: { ...adminHeaders(), "x-api-key": key } });
      expect(onApi.status, path).toBe(404);
      expect(await onApi.text(), path).not.toContain("ticket_registry_");
      expect((await fetch(`${testApp.opsUrl}${path}`, { headers: adminHeaders() })).status, path).toBe(200);
    }
    for (const path of ["/api/v1/chain", "/docs", "/docs-json"]) {
      expect((await fetch(`${testApp.opsUrl}${path}`, { headers: { "x-api-key": key } })).status, path).toBe(404);
      expect((await fetch(`${testApp.baseUrl}${path}`, { headers: { "x-api-key": key } })).status, path).toBe(200);
    }
    for (const url of [testApp.baseUrl, testApp.opsUrl]) {
      expect((await fetch(`${url}/health/live`)).status, url).toBe(200);
      expect((await fetch(`${url}/health/ready`)).status, url).toBe(200);
    }
  });
});

describe("HOST: the address both ports bind, and the start line names it", () => {
  let database: TestDatabase;
  const processes: WorkerProcess[] = [];
  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(async () => {
    await Promise.all(processes.map((each) => each.kill()));
    await database.drop();
  });

  /** An api process with `host` (unset: the default); its ports once it answers on one of `probeHosts`. */
  async function startApi(host: string | undefined, probeHost: string) {
    const [port, opsPort] = [await freePort(), await freePort()];
    const api = startWorkerProcess({
      APP_ROLE: "api",
      DATABASE_URL: database.url,
      REDIS_KEY_PREFIX: `trs-test-host-${randomBytes(4).toString("hex")}`,
      PORT: String(port),
      OPS_PORT: String(opsPort),
      LOG_LEVEL: "info",
      LOG_FORMAT: "json",
      ...(host === undefined ? {} : { HOST: host }),
    });
    processes.push(api);
    await eventually(
      async () => ((await fetch(`http://${probeHost}:${port}/health/live`).catch(() => null))?.ok ? true : undefined),
      60_000,
      `the api to answer:\n${api.output()}`,
    );
    return { api, port, opsPort };
  }

  const answers = async (url: string) => (await fetch(url).catch(() => null))?.status ?? "refused";

  it("listens on 127.0.0.1 by default: not on ::1, and the log says 127.0.0.1", async () => {
    const { api, port, opsPort } = await startApi(undefined, "127.0.0.1");
    expect(await answers(`http://[::1]:${port}/health/live`)).toBe("refused");
    expect(await answers(`http://[::1]:${opsPort}/health/live`)).toBe("refused");
    expect(await answers(`http://127.0.0.1:${opsPort}/health/live`)).toBe(200);
    expect(api.output()).toContain(`API http://127.0.0.1:${port}/api/v1`);
    expect(api.output()).toContain(`operations http://127.0.0.1:${opsPort}`);
  });

  it("listens where HOST says (:: takes ::1 and, dual-stack, 127.0.0.1), and logs that address", async () => {
    const { api, port, opsPort } = await startApi("::", "[::1]");
    expect(await answers(`http://[::1]:${opsPort}/health/live`)).toBe(200);
    expect(await answers(`http://127.0.0.1:${port}/health/live`)).toBe(200);
    expect(api.output()).toContain(`API http://[::]:${port}/api/v1`);
    expect(api.output()).toContain(`operations http://[::]:${opsPort}`);
  });
});

describe("the queue dashboard's changes", () => {
  let readOnly: TestApp;
  let writable: TestApp;
  beforeAll(async () => {
    [readOnly, writable] = await Promise.all([startTestApp(), startTestApp({ ADMIN_QUEUE_WRITE: "true" })]);
  });
  afterAll(async () => Promise.all([readOnly.close(), writable.close()]));

  const queueOf = (testApp: TestApp) => testApp.app.get<Queue>(getQueueToken(CHAIN_WRITER_QUEUE));
  const change = (testApp: TestApp, method: string, path: string, headers: Record<string, string> = {}, body?: string) =>
    fetch(`${testApp.opsUrl}${path}`, { method, headers: { ...adminHeaders(), ...headers }, body });
  const ownOrigin = (testApp: TestApp) => ({ origin: testApp.opsUrl });

  it("are refused unless ADMIN_QUEUE_WRITE: the admin, from the dashboard's own page, still cannot pause", async () => {
    const pause = await change(readOnly, "PUT", PAUSE, ownOrigin(readOnly));
    expect(pause.status).toBe(405);
    expect(await pause.json()).toMatchObject({ code: "queue_dashboard_read_only" });
    const add = await change(readOnly, "POST", ADD, { ...ownOrigin(readOnly), "content-type": "application/json" }, JSON.stringify({ name: "x", data: {} }));
    expect(add.status).toBe(405);
    expect(await queueOf(readOnly).isPaused()).toBe(false);
    expect(await queueOf(readOnly).count()).toBe(0);
    // Reading is what it is for.
    expect((await fetch(`${readOnly.opsUrl}/admin/queues/api/queues`, { headers: adminHeaders() })).status).toBe(200);
  });

  it("with ADMIN_QUEUE_WRITE, need an Origin naming this address: none, or another site's, is 403 and changes nothing", async () => {
    for (const headers of [{} as Record<string, string>, { origin: "https://evil.example" }, { origin: writable.baseUrl }, { origin: "null" }]) {
      const pause = await change(writable, "PUT", PAUSE, headers);
      expect(pause.status, JSON.stringify(headers)).toBe(403);
      expect(await pause.json()).toMatchObject({ code: "origin_mismatch" });
    }
    expect(await queueOf(writable).isPaused()).toBe(false);
  });

  it("with ADMIN_QUEUE_WRITE, need a JSON body or none: a text/plain or form POST (what a cross-site form sends) is 415 and adds nothing", async () => {
    const body = JSON.stringify({ name: "x", data: {} });
    for (const type of ["text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x"]) {
      const add = await change(writable, "POST", ADD, { ...ownOrigin(writable), "content-type": type }, body);
      expect(add.status, type).toBe(415);
      expect(await add.json()).toMatchObject({ code: "json_required" });
    }
    expect(await queueOf(writable).count()).toBe(0);
  });

  it("with ADMIN_QUEUE_WRITE, from the dashboard's own page, pause and resume the queue", async () => {
    expect((await change(writable, "PUT", PAUSE, ownOrigin(writable))).status).toBe(200);
    expect(await queueOf(writable).isPaused()).toBe(true);
    expect((await change(writable, "PUT", RESUME, { ...ownOrigin(writable), "content-type": "application/json" }, "{}")).status).toBe(200);
    expect(await queueOf(writable).isPaused()).toBe(false);
  });

  it("never reach the queue without the admin credential, whatever the Origin", async () => {
    const anonymous = await fetch(`${writable.opsUrl}${PAUSE}`, { method: "PUT", headers: ownOrigin(writable) });
    expect(anonymous.status).toBe(401);
    expect(await queueOf(writable).isPaused()).toBe(false);
  });
});

describe("wrong admin passwords, throttled per client IP", () => {
  const MAX_FAILED = 5;
  let testApp: TestApp;
  beforeAll(async () => {
    // TRUST_PROXY=loopback: the client address is X-Forwarded-For's, so one test plays several clients.
    testApp = await startTestApp({ ADMIN_MAX_FAILED_SIGN_INS: String(MAX_FAILED), ADMIN_FAILED_SIGN_IN_WINDOW_SECONDS: "600", TRUST_PROXY: "loopback" });
  });
  afterAll(async () => testApp.close());

  const from = (client: string, password: string, path = "/metrics") =>
    fetch(`${testApp.opsUrl}${path}`, { headers: { ...adminHeaders(password), "x-forwarded-for": client } });

  it("answers 429 with Retry-After past the budget, the right password too; another client is not affected", async () => {
    for (let attempt = 0; attempt < MAX_FAILED; attempt++) expect((await from("203.0.113.7", "wrong-password-guess-000")).status).toBe(401);
    const throttled = await from("203.0.113.7", TEST_ADMIN_PASSWORD);
    expect(throttled.status).toBe(429);
    expect(Number(throttled.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(await throttled.text()).not.toContain("ticket_registry_");
    expect((await from("203.0.113.7", TEST_ADMIN_PASSWORD, "/admin/queues")).status).toBe(429);
    expect((await from("203.0.113.8", TEST_ADMIN_PASSWORD)).status).toBe(200);
  });

  it("counts an IPv6 client by its /64, and a guess at readiness too (it then shows only what anybody sees)", async () => {
    for (let attempt = 0; attempt < MAX_FAILED; attempt++) {
      const guess = await fetch(`${testApp.baseUrl}/health/ready`, {
        headers: { ...adminHeaders("wrong-password-guess-000"), "x-forwarded-for": `2001:db8:7:7::${attempt + 1}` },
      });
      expect(guess.status).toBe(200);
    }
    expect((await from("2001:db8:7:7:ffff::1", TEST_ADMIN_PASSWORD)).status).toBe(429);
    expect((await from("2001:db8:7:8::1", TEST_ADMIN_PASSWORD)).status).toBe(200);
  });

  it("does not count the right password, nor a request without one", async () => {
    for (let attempt = 0; attempt < MAX_FAILED * 2; attempt++) {
      expect((await from("198.51.100.9", TEST_ADMIN_PASSWORD)).status).toBe(200);
      expect((await fetch(`${testApp.opsUrl}/metrics`, { headers: { "x-forwarded-for": "198.51.100.9" } })).status).toBe(401);
    }
  });
});

describe("readiness without the admin credential, the chain down", () => {
  let testApp: TestApp;
  let rpcPorts: number[];
  beforeAll(async () => {
    rpcPorts = [await freePort(), await freePort()];
    testApp = await startTestApp({
      APP_ROLE: "all",
      CHAIN_RPC_URLS: rpcPorts.map((port) => `http://127.0.0.1:${port}`).join(","),
      REGISTRY_ADDRESS: "0x5FbDB2315678afecb367f032d93F642f64180aa3",
      SIGNER_PRIVATE_KEYS: HARDHAT_KEYS[1],
    });
  });
  afterAll(async () => testApp.close());

  it("says the chain check failed, not which host and port it tried; the admin sees where", async () => {
    const anonymous = await fetch(`${testApp.baseUrl}/health/ready`);
    expect(anonymous.status).toBe(503);
    const shown = JSON.stringify(await anonymous.json());
    expect(JSON.parse(shown)).toMatchObject({ status: "error", error: { chain: { status: "down" } } });
    for (const port of rpcPorts) expect(shown).not.toContain(String(port));
    expect(shown).not.toMatch(/127\.0\.0\.1|ECONNREFUSED|endpoints/);

    const admin = await fetch(`${testApp.baseUrl}/health/ready`, { headers: adminHeaders() });
    expect(admin.status).toBe(503);
    expect(JSON.stringify(await admin.json())).toContain(String(rpcPorts[0]));
  });
});
