import { createServer, type Server } from "node:net";

import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { type NpmStartPlayground, npmStartPlayground } from "../support/npm-start-run";
import { startTcpProxy, type TcpProxy } from "../support/tcp-proxy";
import { eventually, freePort } from "../support/test-chain";

import { startWorkerProcess, type WorkerProcess } from "../support/worker-process";
import { useChainApp } from "../support/chain-app";

/**
 * Stopping with a dependency gone: the api of `npm start` cannot bind its port (the worker is then
 * stopped while it may still be starting), or a worker is sent SIGTERM while Redis or PostgreSQL is
 * unreachable. Nothing ends in an unhandled exception or a stack trace; the exit code and one log
 * line say why.
 */

/** What must never show in the output of a stop, whatever is down. */
const CRASH_SIGNS = /Unhandled|uncaught|Connection is closed|^\s+at /im;

const REDIS_PORT = 6379;
const DATABASE_PORT = 5432;

describe("npm start, the api's port taken", () => {
  let playground: NpmStartPlayground;
  let squatter: Server;

  beforeAll(async () => {
    playground = await npmStartPlayground("port-taken");
    squatter = createServer();
    await new Promise<void>((resolve) => squatter.listen(playground.ports.api, resolve));
  });

  afterAll(async () => {
    await new Promise((resolve) => squatter?.close(resolve));
    await playground?.dispose();
  }, 60_000);

  it("exits 1 saying the port is in use; the worker stops cleanly", async () => {
    const run = playground.launch();
    const exit = await Promise.race([run.exited, new Promise((resolve) => setTimeout(() => resolve("still running"), 150_000))]);
    const output = run.output();
    expect(exit, output).toEqual({ code: 1, signal: null });
    const lines = output.split("\n").filter((line) => line.includes(`port ${playground.ports.api}`) && line.includes("in use"));
    expect(lines, output).toHaveLength(1);
    expect(output).toContain("the api process");
    expect(output).not.toMatch(CRASH_SIGNS);
  }, 180_000);
});

describe("a worker stopped while a dependency is unreachable", () => {
  const workers: WorkerProcess[] = [];
  const proxies: TcpProxy[] = [];

  const chainApp = useChainApp({ env: { APP_ROLE: "api" } });

  afterAll(async () => {
    for (const worker of workers) await worker.kill();
    for (const proxy of proxies) await proxy.close();
  });

  /** A worker reaching `dependency` through a proxy of its own, ready; then the proxy is cut and SIGTERM sent. */
  async function stopWithout(dependency: "redis" | "database"): Promise<{ exit: unknown; output: string }> {
    const proxy = await startTcpProxy(dependency === "redis" ? REDIS_PORT : DATABASE_PORT);
    proxies.push(proxy);
    const via = (url: string) => Object.assign(new URL(url), { hostname: "127.0.0.1", port: String(proxy.port) }).toString();
    const port = await freePort();
    const worker = startWorkerProcess({
      ...chainApp.chain.env,
      PORT: String(port),
      DATABASE_URL: dependency === "database" ? via(chainApp.testApp.databaseUrl) : chainApp.testApp.databaseUrl,
      REDIS_URL: dependency === "redis" ? via(chainApp.testApp.config.redis.url) : chainApp.testApp.config.redis.url,
      REDIS_KEY_PREFIX: chainApp.testApp.config.redis.keyPrefix,
      SHUTDOWN_GRACE_MS: "1000",
      LOG_LEVEL: "info",
    });
    workers.push(worker);
    await eventually(
      async () => ((await fetch(`http://127.0.0.1:${port}/health/ready`).catch(() => null))?.ok ? true : undefined),
      60_000,
      "the worker to be ready",
    );
    await proxy.close();
    await eventually(
      async () => ((await fetch(`http://127.0.0.1:${port}/health/ready`).catch(() => null))?.status === 503 ? true : undefined),
      10_000,
      `readiness to see ${dependency} gone`,
    );
    worker.child.kill("SIGTERM");
    const exit = await Promise.race([worker.exited, new Promise((resolve) => setTimeout(() => resolve("still running"), 60_000))]);
    return { exit, output: worker.output() };
  }

  it.each([
    ["redis", /Redis/],
    ["database", /database|PostgreSQL/],
  ] as const)(
    "without %s: exits on its own, no unhandled error, one line names the dependency",
    async (dependency, named) => {
      const { exit, output } = await stopWithout(dependency);
      expect(exit, output).not.toBe("still running");
      expect(exit, output).toEqual({ code: 1, signal: null });
      expect(output).not.toMatch(CRASH_SIGNS);
      const stopped = output.split("\n").filter((line) => line.includes("SIGTERM: stopped"));
      expect(stopped, output).toHaveLength(1);
      expect(stopped[0]).toMatch(named);
    },
    120_000,
  );
});
