import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { join } from "node:path";

import { Client } from "pg";

import { freePort } from "../test/support/test-chain";

const ROOT = join(__dirname, "..");
const SERVER_URL = process.env.BENCH_DATABASE_SERVER_URL ?? "postgres://postgres@127.0.0.1:5432";

export interface BenchServer {
  baseUrl: string;
  databaseUrl: string;
  apiKey: string;
  ticketeerId: string;
  stop: () => Promise<void>;
}

/** The service as its own process on a fresh database, so the load generator does not share its event loop. */
export async function startBenchServer(env: Record<string, string> = {}): Promise<BenchServer> {
  const database = `ticket_registry_bench_${randomBytes(4).toString("hex")}`;
  await admin(`CREATE DATABASE ${database}`);
  const port = await freePort();
  const apiKey = `bench_${randomBytes(24).toString("hex")}`;
  const ticketeerId = "bench-organization";
  // BENCH_SERVICE_NODE_ARGS passes profiling flags (--cpu-prof and the like) to the service only.
  const nodeArgs = (process.env.BENCH_SERVICE_NODE_ARGS ?? "").split(" ").filter(Boolean);
  const child = spawn(process.execPath, [...nodeArgs, "-r", "ts-node/register/transpile-only", "src/main.ts"], {
    cwd: ROOT,
    env: {
      ...process.env,
      DATABASE_URL: `${SERVER_URL}/${database}`,
      PORT: String(port),
      APP_ROLE: "api",
      APP_MODE: "development",
      DEV_TICKETEER_ID: ticketeerId,
      DEV_API_KEY: apiKey,
      REDIS_KEY_PREFIX: `trs-bench-${randomBytes(4).toString("hex")}`,
      RATE_LIMIT_REQUESTS: "1000000",
      LOG_LEVEL: "warn",
      ...env,
    },
    stdio: ["ignore", "inherit", "inherit"],
  });
  const baseUrl = `http://127.0.0.1:${port}`;
  await waitForHealth(baseUrl, child);
  return {
    baseUrl,
    databaseUrl: `${SERVER_URL}/${database}`,
    apiKey,
    ticketeerId,
    stop: async () => {
      child.kill("SIGTERM");
      await new Promise((resolve) => child.once("exit", resolve));
      await admin(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
    },
  };
}

async function waitForHealth(baseUrl: string, child: ChildProcess): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`the service exited with code ${child.exitCode}`);
    const healthy = await fetch(`${baseUrl}/health`).then((r) => r.ok, () => false);
    if (healthy) return;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error("the service did not become healthy within 60 s");
}

async function admin(sql: string): Promise<void> {
  const client = new Client({ connectionString: `${SERVER_URL}/postgres` });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}
