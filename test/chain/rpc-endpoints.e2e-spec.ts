import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";

import { afterAll, describe, expect, it } from "vitest";

import { allSettled, type Api, registeredEvent, txPromises, uid } from "../support/chain-e2e";
import { adminFetch, scrapeMetrics, total } from "../support/metrics-scrape";
import { startTcpProxy, type TcpProxy } from "../support/tcp-proxy";
import { eventually, startTestChain, type TestChain } from "../support/test-chain";
import { startTestApp, type TestApp } from "../support/test-app";
import { useChainApp } from "../support/chain-app";

/**
 * Several JSON-RPC endpoints (CHAIN_RPC_URLS): the service prefers the first, fails over when it
 * is cut or answers 429, backs off the one that did (honouring Retry-After), reports each endpoint
 * in readiness and metrics without its secrets, and reaches a provider that wants Basic auth from
 * the URL's userinfo and an API-key header from CHAIN_RPC_HEADERS.
 */

const USER = "reader";
const PASSWORD = "p@ss-w0rd";
const API_KEY = "api-key-secret-value";
const SECRET_PATH = "/v3/path-secret-token";

/** An HTTP JSON-RPC provider in front of the node: wants the credentials, counts requests, can answer 429. */
interface AuthProxy {
  url: string;
  authorized: number;
  refused: number;
  rateLimited: number;
  /** While set, every request is answered 429 with this Retry-After (seconds). */
  retryAfter: number | null;
  close: () => Promise<void>;
}

async function startAuthProxy(target: string): Promise<AuthProxy> {
  const expected = `Basic ${Buffer.from(`${USER}:${PASSWORD}`).toString("base64")}`;
  const readBody = (request: IncomingMessage) =>
    new Promise<Buffer>((resolve) => {
      const chunks: Buffer[] = [];
      request.on("data", (chunk: Buffer) => chunks.push(chunk));
      request.on("end", () => resolve(Buffer.concat(chunks)));
    });
  const proxy: AuthProxy = { url: "", authorized: 0, refused: 0, rateLimited: 0, retryAfter: null, close: async () => undefined };
  const server: Server = createServer((request, response) => {
    void (async () => {
      const body = await readBody(request);
      if (request.url !== SECRET_PATH || request.headers.authorization !== expected || request.headers["x-api-key"] !== API_KEY) {
        proxy.refused += 1;
        response.writeHead(401, { "content-type": "application/json" }).end('{"error":"unauthorized"}');
        return;
      }
      if (proxy.retryAfter !== null) {
        proxy.rateLimited += 1;
        response.writeHead(429, { "retry-after": String(proxy.retryAfter) }).end("slow down");
        return;
      }
      proxy.authorized += 1;
      const upstream = await fetch(target, { method: "POST", headers: { "content-type": "application/json" }, body: body.toString() });
      response.writeHead(upstream.status, { "content-type": "application/json" }).end(Buffer.from(await upstream.arrayBuffer()));
    })().catch(() => response.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  proxy.url = `http://127.0.0.1:${port}`;
  proxy.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return proxy;
}

/** Readiness as the admin sees it: the endpoints by URL are not shown to anybody else. */
async function readiness(testApp: TestApp): Promise<any> {
  return (await adminFetch(`${testApp.baseUrl}/health/ready`)).json();
}

async function sell(api: Api, eventId: string, count: number): Promise<string[]> {
  return txPromises(
    await api.post(
      "/api/v1/sold",
      Array.from({ length: count }, () => ({ eventId, ticketId: uid("t"), price: "4", orderTime: 1_750_000_000 })),
    ),
  );
}

describe("an endpoint cut while sales flow", () => {
  let chain: TestChain;
  let proxy: TcpProxy;
  let testApp: TestApp;

  afterAll(async () => {
    await testApp?.close();
    await proxy?.close();
    await chain?.stop();
  });

  it("fails over to the next endpoint: every action confirms, readiness and metrics show endpoint 0 down", async () => {
    chain = await startTestChain(1);
    proxy = await startTcpProxy(Number(new URL(chain.url).port));
    testApp = await startTestApp({
      ...chain.env,
      CHAIN_RPC_URL: "",
      CHAIN_RPC_URLS: `${proxy.url},${chain.url}`,
    });
    const { ticketeerId, api } = await testApp.client();
    const eventId = await registeredEvent(api, ticketeerId);

    const promises: string[] = [];
    for (let round = 0; round < 10; round++) {
      if (round === 4) await proxy.close();
      promises.push(...(await sell(api, eventId, 10)));
      await new Promise((resolve) => setTimeout(resolve, 150));
    }
    const results = await allSettled(api, promises, 60_000);
    expect(results.map((result) => result.status)).toEqual(Array(100).fill("confirmed"));

    const ready = await eventually(
      async () => {
        const answer = await readiness(testApp);
        return answer.info?.chain?.endpoints?.[0]?.up === false ? answer : undefined;
      },
      10_000,
      "readiness to show endpoint 0 down",
    );
    expect(ready.status).toBe("degraded");
    expect(ready.info.chain).toMatchObject({
      status: "degraded",
      endpoints: [
        { endpoint: 0, url: proxy.url, up: false },
        { endpoint: 1, url: chain.url, up: true },
      ],
    });
    expect(ready.info.chain.endpoints[0].lastError).toMatch(/unreachable/);
    const { samples } = await scrapeMetrics(testApp.opsUrl);
    expect(total(samples, "ticket_registry_chain_rpc_up", { endpoint: "0" })).toBe(0);
    expect(total(samples, "ticket_registry_chain_rpc_up", { endpoint: "1" })).toBe(1);
    expect(total(samples, "ticket_registry_chain_rpc_failures_total", { endpoint: "0", reason: "unreachable" })).toBeGreaterThan(0);

    // Back, and preferred again once its back-off has passed.
    await proxy.open();
    await eventually(async () => ((await readiness(testApp)).info?.chain?.endpoints?.[0]?.up === true ? true : undefined), 30_000, "endpoint 0 up again");
  });
});

describe("a provider behind Basic auth and an API-key header", () => {
  // A registry of its own: a second ledger would number its events from the start again.
  let authProxy: AuthProxy;

  const chainApp = useChainApp({
    env: async (chain, defer) => {
      authProxy = await startAuthProxy(chain.url);
      defer(() => authProxy.close());
      const withCredentials = `http://${USER}:${encodeURIComponent(PASSWORD)}@${new URL(authProxy.url).host}${SECRET_PATH}`;
      return { CHAIN_RPC_URL: "", CHAIN_RPC_URLS: `${withCredentials},${chain.url}`, CHAIN_RPC_HEADERS: JSON.stringify({ "X-Api-Key": API_KEY }) };
    },
  });

  afterAll(async () => {
    await chainApp.testApp?.close();
    await authProxy?.close();
    await chainApp.chain?.stop();
  });

  it("works through it with the URL's credentials as a Basic header and the configured header; without them it is refused", async () => {
    const withoutCredentials = await fetch(`${authProxy.url}${SECRET_PATH}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_chainId", params: [] }),
    });
    expect(withoutCredentials.status).toBe(401);
    const refusedBefore = authProxy.refused;

    const eventId = await registeredEvent(chainApp.api, chainApp.ticketeerId);
    const results = await allSettled(chainApp.api, await sell(chainApp.api, eventId, 10));
    expect(results.map((result) => result.status)).toEqual(Array(10).fill("confirmed"));
    expect(authProxy.authorized).toBeGreaterThan(10);
    expect(authProxy.refused).toBe(refusedBefore);

    const ready = await readiness(chainApp.testApp);
    expect(ready.info.chain.endpoints[0]).toMatchObject({ endpoint: 0, url: `${authProxy.url}/[redacted]`, up: true });
    const text = JSON.stringify(ready) + (await scrapeMetrics(chainApp.testApp.opsUrl)).text;
    for (const secret of [USER, PASSWORD, encodeURIComponent(PASSWORD), API_KEY, SECRET_PATH]) expect(text).not.toContain(secret);
  });

  it("backs off an endpoint that answers 429 for its Retry-After, meanwhile uses the next, then prefers it again", async () => {
    const eventId = await registeredEvent(chainApp.api, chainApp.ticketeerId);
    authProxy.retryAfter = 3;
    const limitedBefore = authProxy.rateLimited;
    const promises = await sell(chainApp.api, eventId, 10);
    const results = await allSettled(chainApp.api, promises, 30_000);
    expect(results.map((result) => result.status)).toEqual(Array(10).fill("confirmed"));

    // The receipt watcher polls every 100 ms: without the back-off these seconds would bring dozens of requests.
    const windowStart = authProxy.rateLimited;
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    expect(authProxy.rateLimited - windowStart).toBeLessThanOrEqual(4);
    expect(authProxy.rateLimited).toBeGreaterThan(limitedBefore);
    const { samples } = await scrapeMetrics(chainApp.testApp.opsUrl);
    expect(total(samples, "ticket_registry_chain_rpc_failures_total", { endpoint: "0", reason: "rate_limited" })).toBeGreaterThan(0);

    authProxy.retryAfter = null;
    const authorizedBefore = authProxy.authorized;
    // Readiness asks the chain for its block number: traffic even while no transaction is open.
    await eventually(
      async () => ((await readiness(chainApp.testApp)) && authProxy.authorized > authorizedBefore + 2 ? true : undefined),
      15_000,
      "requests back at the preferred endpoint",
    );
    expect((await readiness(chainApp.testApp)).info.chain.endpoints[0].up).toBe(true);
  });
});
