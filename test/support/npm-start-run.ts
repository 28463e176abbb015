import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

import { PID_FILE } from "../../scripts/lib/playground";
import { dropDatabase } from "../../scripts/stack/database";
import { freePort } from "../../scripts/stack/ports";
import { answersHealth } from "../../scripts/stack/service-process";
import { apiClient, type ApiClient } from "./api-client";
import { eventually } from "./test-chain";
import { TYPESCRIPT_RUNNER_ARGS } from "../../scripts/stack/typescript-runner";

const ROOT = join(__dirname, "..", "..");
const SERVER_URL = process.env.TEST_DATABASE_SERVER_URL ?? "postgres://postgres@127.0.0.1:5432";

/** The playground's ticketeer: `npm start` makes it with DEV_TICKETEER_ID. */
export const PLAYGROUND_TICKETEER = "playground";

/** One `npm start` child process. */
export interface NpmStartRun {
  child: ChildProcess;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  output: () => string;
  /** Anvil's process id, read from the data folder once the service answered. */
  chainPid: number;
}

/**
 * `npm start`'s real entry (scripts/start.ts through the TypeScript runner, as the start script runs it) on a data
 * folder, ports and a `ticket_registry_test_*` database of its own, started as often as a test needs.
 */
export interface NpmStartPlayground {
  dataDir: string;
  apiKey: string;
  ports: { api: number; ops: number; worker: number; chain: number };
  api: ApiClient;
  runs: NpmStartRun[];
  /** `npm start` (with `args`), answered once the API and, unless `--single-process`, the worker answer /health. */
  start(...args: string[]): Promise<NpmStartRun>;
  /** `npm start` (with `args`), not waited for: a run that is meant to fail. */
  launch(...args: string[]): NpmStartRun;
  /** `start` with `env` on top of the playground's (DATABASE_URL: another ledger, say). */
  startWith(env: Record<string, string>, ...args: string[]): Promise<NpmStartRun>;
  /** The URL of another `ticket_registry_test_*` database, dropped with the rest at dispose. */
  otherDatabaseUrl(): string;
  /** Kills what is still running of every run, then drops the database and the data folder. */
  dispose(): Promise<void>;
}

export async function npmStartPlayground(name: string, env: Record<string, string> = {}): Promise<NpmStartPlayground> {
  const dataDir = mkdtempSync(join(tmpdir(), `${name}-`));
  const newDatabaseUrl = () => `${SERVER_URL}/ticket_registry_test_${randomBytes(6).toString("hex")}`;
  const databaseUrl = newDatabaseUrl();
  const databases = [databaseUrl];
  const apiKey = `trk_${name.replace(/\W/g, "")}_${randomBytes(16).toString("hex")}`;
  const ports = { api: await freePort(), ops: await freePort(), worker: await freePort(), chain: await freePort() };
  const childEnv = {
    ...process.env,
    PLAYGROUND_DATA_DIR: dataDir,
    EMBEDDED_CHAIN_PORT: String(ports.chain),
    PORT: String(ports.api),
    WORKER_PORT: String(ports.worker),
    OPS_PORT: String(ports.ops),
    DATABASE_URL: databaseUrl,
    REDIS_KEY_PREFIX: `${name}-test-${randomBytes(4).toString("hex")}`,
    DEV_TICKETEER_ID: PLAYGROUND_TICKETEER,
    DEV_API_KEY: apiKey,
    CALLBACK_DELIVERY: "false",
    LOG_LEVEL: "warn",
    ...env,
  };
  const runs: NpmStartRun[] = [];

  const launchWith = (env: Record<string, string>, args: string[]): NpmStartRun => {
    const run = spawnRun(args, { ...childEnv, ...env });
    runs.push(run);
    return run;
  };

  const startWith = async (env: Record<string, string>, ...args: string[]): Promise<NpmStartRun> => {
    const run = launchWith(env, args);
    const split = !args.includes("--single-process");
    await eventually(
      async () => {
        if (run.child.exitCode !== null || run.child.signalCode !== null) throw new Error(`npm start exited early:\n${run.output()}`);
        const healthy = (await answersHealth(localUrl(ports.api))) && (!split || (await answersHealth(localUrl(ports.worker))));
        return healthy ? true : undefined;
      },
      120_000,
      "npm start to serve",
    );
    run.chainPid = Number(readFileSync(join(dataDir, PID_FILE), "utf8"));
    return run;
  };

  const dispose = async (): Promise<void> => {
    for (const run of runs) {
      if (run.child.exitCode === null && run.child.signalCode === null) run.child.kill("SIGKILL");
      await run.exited;
      if (alive(run.chainPid)) process.kill(run.chainPid, "SIGKILL");
    }
    if (existsSync(dataDir)) rmSync(dataDir, { recursive: true, force: true });
    for (const url of databases) await dropDatabase(url);
  };

  const otherDatabaseUrl = (): string => {
    const url = newDatabaseUrl();
    databases.push(url);
    return url;
  };

  return {
    dataDir,
    apiKey,
    ports,
    api: apiClient(localUrl(ports.api), apiKey),
    runs,
    start: (...args) => startWith({}, ...args),
    startWith,
    launch: (...args) => launchWith({}, args),
    otherDatabaseUrl,
    dispose,
  };
}

function spawnRun(args: string[], env: NodeJS.ProcessEnv): NpmStartRun {
  const child = spawn(process.execPath, [...TYPESCRIPT_RUNNER_ARGS, "scripts/start.ts", ...args], { cwd: ROOT, env, stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  child.stdout?.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once("exit", (code, signal) => resolve({ code, signal })),
  );
  return { child, exited, output: () => output, chainPid: 0 };
}

const localUrl = (port: number) => `http://127.0.0.1:${port}`;

/** Whether a process of this id runs (0: none was recorded). */
export function alive(pid: number): boolean {
  if (!pid) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Sends `signal` to the run unless it has exited, and waits for its exit. */
export async function stopRun(run: NpmStartRun, signal: NodeJS.Signals): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  if (run.child.exitCode === null && run.child.signalCode === null) run.child.kill(signal);
  return run.exited;
}
