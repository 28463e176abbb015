import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";

import { Client } from "pg";

import { freePort } from "../../scripts/stack/ports";
import { generateTestTls, writeTestTls } from "../../scripts/stack/local-tls";
import { NODE_LIFELINE_ARGS, type OwnedProcess, spawnOwned } from "../../scripts/stack/owned-process";
import { waitForHealth } from "../../scripts/stack/service-process";
import { startCallbackSink } from "../callback-sink";
import { createBenchDatabase } from "./bench-database";
import { cpuProfileArgs, cpuProfileDir } from "./cpu-profile";
import type { RunDirectory } from "./run-directory";
import type { Teardown } from "./teardown";

/** How `npm start` runs the service: the api and the worker apart (its default), or one process. */
export type Layout = "split" | "single";

/** What a benchmark drives: `npm start`'s api, its key, the callback receiver and the run's database. */
export interface NpmStartStack {
  baseUrl: string;
  apiKey: string;
  ticketeerId: string;
  receiverPort: number;
  db: Client;
  databaseUrl: string;
  /** The api process's id (its CPU profile is named by it). */
  apiPid: number | undefined;
  /** Where `npm start`'s processes write their CPU profiles (BENCH_CPU_PROFILE_DIR set), else undefined. */
  cpuProfileDir: string | undefined;
  /** Stops `npm start` (gracefully, its profiles written) before the teardown would; the database stays. */
  stop: () => Promise<void>;
}

/**
 * `scripts/start.ts` as a user runs it (its own database, playground chain and Redis prefix), with an
 * HTTPS callback receiver in a process of its own: in the benchmark's process it would compete with
 * the load and delay the timed answers. Everything it starts is stopped by `teardown`.
 */
export async function startNpmStartStack(layout: Layout, logs: RunDirectory, teardown: Teardown, name = "npm-start"): Promise<NpmStartStack> {
  const tls = writeTestTls(await generateTestTls());
  teardown.add("test TLS files", async () => tls.remove());
  const receiverPort = await startReceiverProcess(tls, logs.path, teardown);
  const database = await createBenchDatabase("bench");
  teardown.add("database", database.drop);
  const [port, workerPort, chainPort] = [await freePort(), await freePort(), await freePort()];
  const apiKey = `bench_${randomBytes(24).toString("hex")}`;
  const ticketeerId = "bench-organization";
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PLAYGROUND_DATA_DIR: join(logs.path, "playground"),
    EMBEDDED_CHAIN_PORT: String(chainPort),
    PORT: String(port),
    WORKER_PORT: String(workerPort),
    DATABASE_URL: database.url,
    DEV_TICKETEER_ID: ticketeerId,
    DEV_API_KEY: apiKey,
    REDIS_KEY_PREFIX: `trs-bench-${randomBytes(4).toString("hex")}`,
    // The rate limits stay at their defaults: the on-sale proves they admit it (bench/onsale-bench.ts).
    LOG_LEVEL: "warn",
    CALLBACK_ALLOW_HOSTS: "localhost",
    NODE_EXTRA_CA_CERTS: tls.caFile,
  };
  // npm start decides the layout: APP_ROLE would make it one process, CHAIN_RPC_URL another chain.
  for (const variable of ["APP_ROLE", "CHAIN_RPC_URL", "CHAIN_RPC_URLS", "REGISTRY_ADDRESS", "SIGNER_PRIVATE_KEYS"]) delete env[variable];
  // Through NODE_OPTIONS, so that npm start's own children (the api, the worker) profile too.
  const profileDir = cpuProfileDir(name);
  if (profileDir) env.NODE_OPTIONS = [env.NODE_OPTIONS, ...cpuProfileArgs(profileDir)].filter(Boolean).join(" ");
  const start = spawnOwned({
    name: "npm-start",
    command: process.execPath,
    args: [...NODE_LIFELINE_ARGS, "scripts/start.ts", ...(layout === "single" ? ["--single-process"] : [])],
    env,
    output: { file: join(logs.path, "npm-start.log") },
  });
  let stopped: Promise<void> | undefined;
  const stop = () =>
    (stopped ??= start.stop("SIGTERM", 60_000).then((exit) => {
      if (exit.code !== 0) console.error(`npm start ended with ${exit.signal ?? `exit code ${exit.code}`}; see ${start.logFile}`);
    }));
  teardown.add("npm start", stop);
  const baseUrl = `http://127.0.0.1:${port}`;
  await waitForHealth(baseUrl, start, 180_000);
  if (layout === "split") await waitForHealth(`http://127.0.0.1:${workerPort}`, start, 60_000);
  const db = new Client({ connectionString: database.url });
  await db.connect();
  teardown.add("database client", () => db.end());
  const apiPid = /\[start\] api \(pid (\d+)/.exec(readFileSync(start.logFile as string, "utf8"))?.[1];
  return {
    baseUrl,
    apiKey,
    ticketeerId,
    receiverPort,
    db,
    databaseUrl: database.url,
    apiPid: apiPid === undefined ? undefined : Number(apiPid),
    cpuProfileDir: profileDir,
    stop,
  };
}

const RECEIVER_FLAG = "--callback-receiver";

/**
 * bench/callback-sink.ts's HTTPS receiver in a process of its own (in the benchmark's process it
 * would compete with the load and delay the timed answers); its port. `teardown` stops it.
 */
export async function startReceiverProcess(tls: { certFile: string; keyFile: string }, logDir: string, teardown: Teardown): Promise<number> {
  const receiverProcess = spawnOwned({
    name: "callback-receiver",
    command: process.execPath,
    args: [...NODE_LIFELINE_ARGS, __filename, RECEIVER_FLAG, tls.certFile, tls.keyFile],
    output: { file: join(logDir, "callback-receiver.log") },
  });
  teardown.add("callback receiver", () => receiverProcess.stop("SIGTERM", 5_000));
  return announcedPort(receiverProcess);
}

/** The port the receiver process announced in its log. */
async function announcedPort(receiver: OwnedProcess): Promise<number> {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (!receiver.running()) throw new Error(`${receiver.name} exited; see ${receiver.logFile}`);
    const announced = /listening on port (\d+)/.exec(readFileSync(receiver.logFile as string, "utf8"));
    if (announced) return Number(announced[1]);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${receiver.name} did not start listening; see ${receiver.logFile}`);
}

// This file run with RECEIVER_FLAG cert key: bench/callback-sink.ts's receiver, its port announced on stdout.
if (require.main === module && process.argv[2] === RECEIVER_FLAG) {
  void startCallbackSink(process.argv[3], process.argv[4]).then((sink) => console.log(`${RECEIVER_FLAG} listening on port ${sink.port}`));
}
