import { randomBytes } from "node:crypto";

import { freePort } from "../scripts/stack/ports";
import { waitForHealth } from "../scripts/stack/service-process";
import { createBenchDatabase } from "./stack/bench-database";
import { spawnBenchService } from "./stack/bench-service";

export interface BenchServer {
  baseUrl: string;
  databaseUrl: string;
  apiKey: string;
  ticketeerId: string;
  /** The service process's id, to sample its memory. */
  pid: number;
  stop: () => Promise<void>;
}

export interface BenchServerOptions {
  /** The service reaches PostgreSQL on this local port (a TCP proxy the run can cut) instead of the server's own. */
  databasePort?: number;
}

/**
 * The service as its own process on a fresh database, so the load generator does not share its
 * event loop. Its log goes to `logDir`.
 */
export async function startBenchServer(env: Record<string, string>, logDir: string, options: BenchServerOptions = {}): Promise<BenchServer> {
  const database = await createBenchDatabase("bench");
  const port = await freePort();
  const apiKey = `bench_${randomBytes(24).toString("hex")}`;
  const ticketeerId = "bench-organization";
  const service = spawnBenchService(
    (env.APP_ROLE as "api" | "all" | undefined) ?? "api",
    {
      DATABASE_URL: options.databasePort === undefined ? database.url : viaPort(database.url, options.databasePort),
      PORT: String(port),
      APP_MODE: "development",
      DEV_TICKETEER_ID: ticketeerId,
      DEV_API_KEY: apiKey,
      REDIS_KEY_PREFIX: `trs-bench-${randomBytes(4).toString("hex")}`,
      RATE_LIMIT_REQUESTS: "1000000",
      RATE_LIMIT_ACTIONS: "1000000000",
      LOG_LEVEL: "warn",
      ...env,
    },
    logDir,
    "service",
  );
  const stop = async () => {
    await service.stop("SIGTERM");
    await database.drop();
  };
  const baseUrl = `http://127.0.0.1:${port}`;
  try {
    await waitForHealth(baseUrl, service);
  } catch (error) {
    await stop();
    throw error;
  }
  return { baseUrl, databaseUrl: database.url, apiKey, ticketeerId, pid: service.pid, stop };
}

function viaPort(url: string, port: number): string {
  const proxied = new URL(url);
  proxied.hostname = "127.0.0.1";
  proxied.port = String(port);
  return proxied.toString();
}
