import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

import { Network } from "ethers";
import { afterEach, describe, expect, it } from "vitest";

import { JsonRpcOverFetchProvider } from "./json-rpc-over-fetch-provider";

describe("JsonRpcOverFetchProvider", () => {
  let server: Server | null = null;

  afterEach(async () => {
    await new Promise((resolve) => server?.close(resolve) ?? resolve(undefined));
    server = null;
  });

  async function rpcServer(
    answer: (body: { id: number; method: string }[] | { id: number; method: string }) => { status: number; body: string },
  ): Promise<string> {
    server = createServer((request, response) => {
      let raw = "";
      request.on("data", (chunk: Buffer) => (raw += chunk.toString()));
      request.on("end", () => {
        const { status, body } = answer(JSON.parse(raw));
        response.writeHead(status, { "content-type": "application/json" }).end(body);
      });
    });
    await new Promise<void>((resolve) => server?.listen(0, "127.0.0.1", resolve));
    return `http://127.0.0.1:${(server?.address() as AddressInfo).port}`;
  }

  it("sends the payload and returns the node's results, large ones included", async () => {
    const logs = Array.from({ length: 3_000 }, (_, index) => ({ logIndex: `0x${index.toString(16)}`, data: "0x" + "ab".repeat(64) }));
    const url = await rpcServer((body) => {
      const calls = Array.isArray(body) ? body : [body];
      return {
        status: 200,
        body: JSON.stringify(calls.map((call) => ({ jsonrpc: "2.0", id: call.id, result: call.method === "test_logs" ? logs : "0x7a69" }))),
      };
    });
    const provider = new JsonRpcOverFetchProvider(url, new Network("test", 31337n), { staticNetwork: true, batchMaxCount: 1 });
    expect(await provider.send("test_logs", [])).toHaveLength(3_000);
    provider.destroy();
  });

  it("rejects when the node answers with an HTTP error", async () => {
    const url = await rpcServer(() => ({ status: 503, body: "{}" }));
    const provider = new JsonRpcOverFetchProvider(url, new Network("test", 31337n), { staticNetwork: true, batchMaxCount: 1 });
    await expect(provider.send("eth_blockNumber", [])).rejects.toThrow(/503/);
    provider.destroy();
  });
});
