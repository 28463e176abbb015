import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

import { afterEach, describe, expect, it } from "vitest";

import { redactedUrl, RpcEndpoints, withoutCredentials } from "./rpc-endpoints";

describe("RpcEndpoints", () => {
  const servers: Server[] = [];

  afterEach(async () => {
    await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
  });

  async function server(answer: (headers: Record<string, string | string[] | undefined>) => { status: number; headers?: Record<string, string> }) {
    const seen: Record<string, string | string[] | undefined>[] = [];
    const listening = createServer((request, response) => {
      seen.push(request.headers);
      request.resume();
      request.on("end", () => {
        const { status, headers } = answer(request.headers);
        response.writeHead(status, { "content-type": "application/json", ...headers }).end('{"jsonrpc":"2.0","id":1,"result":"0x1"}');
      });
    });
    servers.push(listening);
    await new Promise<void>((resolve) => listening.listen(0, "127.0.0.1", resolve));
    return { url: `http://127.0.0.1:${(listening.address() as AddressInfo).port}`, seen };
  }

  it("turns a URL's credentials into a Basic header and redacts everything secret from its label", () => {
    expect(withoutCredentials("https://us%40er:p%3Ass@rpc.example.com/v3/key")).toEqual({
      url: "https://rpc.example.com/v3/key",
      authorization: `Basic ${Buffer.from("us@er:p:ss").toString("base64")}`,
    });
    expect(withoutCredentials("http://127.0.0.1:8545")).toEqual({ url: "http://127.0.0.1:8545", authorization: null });
    expect(redactedUrl("https://user:pass@rpc.example.com/v3/key?token=t")).toBe("https://rpc.example.com/[redacted]");
    expect(redactedUrl("http://127.0.0.1:8545")).toBe("http://127.0.0.1:8545");
  });

  it("sends the credentials and headers, fails over on 5xx and backs that endpoint off for its Retry-After", async () => {
    const failing = await server(() => ({ status: 503, headers: { "retry-after": "30" } }));
    const healthy = await server(() => ({ status: 200 }));
    const withUser = failing.url.replace("http://", "http://user:pw@");
    const sut = new RpcEndpoints([withUser, healthy.url], { "x-api-key": "k" });
    expect(await sut.post({ id: 1 }, 1_000)).toMatchObject({ result: "0x1" });
    expect(await sut.post({ id: 2 }, 1_000)).toMatchObject({ result: "0x1" });
    expect(failing.seen).toHaveLength(1);
    expect(failing.seen[0]).toMatchObject({ authorization: `Basic ${Buffer.from("user:pw").toString("base64")}`, "x-api-key": "k" });
    expect(healthy.seen).toHaveLength(2);
    expect(healthy.seen[0].authorization).toBeUndefined();
    const [first, second] = sut.health();
    expect(first).toMatchObject({ endpoint: 0, up: false, lastError: "answered 503 Service Unavailable" });
    expect(Date.parse(first.backedOffUntil as string) - Date.now()).toBeGreaterThan(25_000);
    expect(second).toMatchObject({ endpoint: 1, up: true, lastError: null, backedOffUntil: null });
  });

  it("does not fail over on a refusal of the request itself (4xx other than 429)", async () => {
    const refusing = await server(() => ({ status: 401 }));
    const healthy = await server(() => ({ status: 200 }));
    const sut = new RpcEndpoints([refusing.url, healthy.url]);
    await expect(sut.post({ id: 1 }, 1_000)).rejects.toThrow(/401/);
    expect(healthy.seen).toHaveLength(0);
  });

  it("fails when every endpoint is backed off, without sending anything", async () => {
    const limited = await server(() => ({ status: 429, headers: { "retry-after": "5" } }));
    const sut = new RpcEndpoints([limited.url]);
    await expect(sut.post({ id: 1 }, 1_000)).rejects.toThrow(/no JSON-RPC endpoint answered .*answered 429/);
    await expect(sut.post({ id: 2 }, 1_000)).rejects.toThrow(/every JSON-RPC endpoint is backed off/);
    expect(limited.seen).toHaveLength(1);
  });
});
