import { randomBytes } from "node:crypto";

import { freePort } from "../test/support/test-chain";
import { createDatabase } from "./stack/database";
import { spawnService, waitForHealth } from "./stack/service-process";

export interface BenchServer {
  baseUrl: string;
  databaseUrl: string;
  apiKey: string;
  ticketeerId: string;
  /** The service process's id, to sample its memory. */
  pid: number;
  stop: () => Promise<void>;
}

/**
 * The service as its own process on a fresh database, so the load generator does not share its
 * event loop. Its log goes to `logDir`.
 */
export async function startBenchServer(env: Record<string, string>, logDir: string): Promise<BenchServer> {
  const database = await createDatabase("bench");
  const port = await freePort();
  const apiKey = `bench_${randomBytes(24).toString("hex")}`;
  const ticketeerId = "bench-organization";
  const service = spawnService(
    (env.APP_ROLE as "api" | "all" | undefined) ?? "api",
    {
      DATABASE_URL: database.url,
      PORT: String(port),
      APP_MODE: "development",
      DEV_TICKETEER_ID: ticketeerId,
      DEV_API_KEY: apiKey,
      REDIS_KEY_PREFIX: `trs-bench-${randomBytes(4).toString("hex")}`,
      RATE_LIMIT_REQUESTS: "1000000",
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
