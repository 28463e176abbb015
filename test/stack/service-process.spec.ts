import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

import { afterAll, describe, expect, it } from "vitest";

import { spawnOwned } from "../../scripts/stack/owned-process";
import { waitForHealth } from "../../scripts/stack/service-process";

describe("waitForHealth", () => {
  const servers: Server[] = [];

  afterAll(async () => {
    for (const server of servers) await new Promise((resolve) => server.close(resolve));
  });

  it("resolves once /health answers 2xx", async () => {
    let calls = 0;
    const server = createServer((request, response) => {
      calls += 1;
      response.writeHead(request.url === "/health" && calls > 2 ? 200 : 503).end();
    });
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const alive = spawnOwned({ name: "service", command: "sleep", args: ["600"] });
    await waitForHealth(baseUrl, alive, 30_000);
    expect(calls).toBe(3);
    await alive.stop("SIGKILL");
  });

  it("fails, naming the process and its log, when the process exits first", async () => {
    const crashed = spawnOwned({ name: "api", command: "sh", args: ["-c", "exit 3"], output: { file: "/dev/null" } });
    await expect(waitForHealth("http://127.0.0.1:9", crashed, 30_000)).rejects.toThrow("api exited before it was healthy; see /dev/null");
  });
});
