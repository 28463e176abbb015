import { join } from "node:path";

import Redis from "ioredis";

import { acceptsConnections, freePort } from "./ports";
import { type OwnedProcess, spawnOwned, underShellLifeline } from "./owned-process";

/**
 * A Redis of the run's own on a free port (redis-server under the shell's lifeline), in memory only (`--save "" --appendonly no`): a restart
 * loses everything, as a Redis without persistence does. The shared Redis on 6379 is never touched.
 */
export interface RedisServer {
  url: string;
  port: number;
  /** SHUTDOWN NOSAVE, then waits until the port is closed. */
  shutdown: () => Promise<void>;
  /** Starts it again on the same port, empty. */
  start: () => Promise<void>;
  stop: () => Promise<void>;
}

export async function startRedisServer(logDir: string): Promise<RedisServer> {
  const port = await freePort();
  let current: OwnedProcess | null = null;
  const start = async () => {
    const args = ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"];
    current = spawnOwned({ name: "redis", ...underShellLifeline("redis-server", args), output: { file: join(logDir, "redis.log") } });
    await waitForPort(port, true, current);
  };
  const shutdown = async () => {
    const client = new Redis({ port, host: "127.0.0.1", lazyConnect: true, maxRetriesPerRequest: 0 });
    await client.connect();
    await client.call("SHUTDOWN", "NOSAVE").catch(() => undefined);
    client.disconnect();
    await current?.exited;
    await waitForPort(port, false);
  };
  await start();
  return { url: `redis://127.0.0.1:${port}`, port, shutdown, start, stop: async () => void (await current?.stop("SIGKILL")) };
}

/** Waits until the port accepts connections (`open`) or refuses them. */
async function waitForPort(port: number, open: boolean, owner?: OwnedProcess): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    if (open && owner && !owner.running()) throw new Error(`redis-server exited; see ${owner.logFile}`);
    if ((await acceptsConnections(port)) === open) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`port ${port} did not ${open ? "open" : "close"} within 30 s`);
}
