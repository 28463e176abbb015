import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { HARDHAT_KEYS, eventually, freePort } from "../support/test-chain";
import { startTestApp, type TestApp } from "../support/test-app";

const ADMIN_PASSWORD = "correct-horse-battery-staple";
const REGISTRY_ADDRESS = "0x5FbDB2315678afecb367f032d93F642f64180aa3";

/** The operations endpoints on the operations port (a worker's one port), the rest on the API's. */
const get = (testApp: TestApp, path: string, headers: Record<string, string> = {}) =>
  fetch((/^\/(admin|metrics)/.test(path) ? testApp.opsUrl : testApp.baseUrl) + path, { headers });
const basic = (user: string, password: string) => ({ authorization: `Basic ${Buffer.from(`${user}:${password}`).toString("base64")}` });

describe("the worker role", () => {
  let worker: TestApp;
  beforeAll(async () => {
    worker = await startTestApp({ APP_ROLE: "worker", ADMIN_PASSWORD });
  });
  afterAll(async () => worker.close());

  it("serves liveness, readiness and the queue dashboard", async () => {
    expect((await get(worker, "/health/live")).status).toBe(200);
    const ready = await get(worker, "/health/ready");
    expect(ready.status).toBe(200);
    expect(await ready.json()).toMatchObject({ status: "ok", info: { database: { status: "up" }, redis: { status: "up" } } });
    expect((await get(worker, "/admin/queues", basic("admin", ADMIN_PASSWORD))).status).toBe(200);
  });

  it("serves no API and no docs", async () => {
    for (const path of ["/api/v1/chain", "/api/v1/events/any", "/api/v1/callbacks", "/docs", "/docs-json"]) {
      expect((await get(worker, path)).status, path).toBe(404);
    }
    const write = await fetch(`${worker.baseUrl}/api/v1/sold`, { method: "POST", headers: { "content-type": "application/json" }, body: "[]" });
    expect(write.status).toBe(404);
  });
});

describe("the queue dashboard", () => {
  let api: TestApp;
  let withoutCredential: TestApp;
  beforeAll(async () => {
    [api, withoutCredential] = await Promise.all([startTestApp({ ADMIN_USERNAME: "ops", ADMIN_PASSWORD }), startTestApp({ ADMIN_PASSWORD: "" })]);
  });
  afterAll(async () => Promise.all([api.close(), withoutCredential.close()]));

  it("asks for the admin credential and refuses a wrong one", async () => {
    const anonymous = await get(api, "/admin/queues");
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get("www-authenticate")).toMatch(/^Basic /);
    expect((await get(api, "/admin/queues", basic("ops", `${ADMIN_PASSWORD}!`))).status).toBe(401);
    expect((await get(api, "/admin/queues", basic("admin", ADMIN_PASSWORD))).status).toBe(401);
  });

  it("shows the chain writer's queue to the admin", async () => {
    const page = await get(api, "/admin/queues", basic("ops", ADMIN_PASSWORD));
    expect(page.status).toBe(200);
    const queues = await get(api, "/admin/queues/api/queues", basic("ops", ADMIN_PASSWORD));
    expect(queues.status).toBe(200);
    const body = (await queues.json()) as { queues: { name: string }[] };
    expect(body.queues.map((queue) => queue.name)).toEqual(["chain-writer"]);
  });

  it("is off when no admin password is configured: nobody gets in", async () => {
    expect((await get(withoutCredential, "/admin/queues", basic("admin", ADMIN_PASSWORD))).status).toBe(401);
  });
});

describe("readiness when the chain is unreachable", () => {
  let api: TestApp;
  let all: TestApp;
  beforeAll(async () => {
    const nobodyListens = `http://127.0.0.1:${await freePort()}`;
    const chain = { CHAIN_RPC_URL: nobodyListens, REGISTRY_ADDRESS, SIGNER_PRIVATE_KEYS: HARDHAT_KEYS[1] };
    [api, all] = await Promise.all([startTestApp({ ...chain, APP_ROLE: "api" }), startTestApp({ ...chain, APP_ROLE: "all" })]);
  });
  afterAll(async () => Promise.all([api.close(), all.close()]));

  it("keeps an API instance ready but degraded: it still accepts work", async () => {
    // The database and Redis pings have 1.5 s each: on a saturated machine one may miss it once, which
    // is not what this checks. A chain that made the instance unready would keep it at 503 throughout.
    const ready = await eventually(
      async () => {
        const answer = await get(api, "/health/ready");
        return answer.status === 200 ? answer : undefined;
      },
      10_000,
      "an API instance ready while the chain is unreachable",
    );
    expect(await ready.json()).toMatchObject({ status: "degraded", info: { chain: { status: "degraded", reachable: false } } });
  });

  it("takes an instance that writes to the chain out of readiness, not out of liveness", async () => {
    const ready = await get(all, "/health/ready");
    expect(ready.status).toBe(503);
    expect(await ready.json()).toMatchObject({ status: "error", error: { chain: { status: "down" } } });
    expect((await get(all, "/health")).status).toBe(503);
    expect((await get(all, "/health/live")).status).toBe(200);
  });
});
