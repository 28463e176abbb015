import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { join } from "node:path";

import Redis from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { apiClient } from "../support/api-client";
import { actionPromises, allSettled } from "../support/chain-e2e";
import { DELIVERY_ENV, uid } from "../support/callbacks-e2e";

import { eventually, freePort } from "../support/test-chain";
import { createTestDatabase } from "../support/test-database";
import { useChainApp } from "../support/chain-app";
import { TYPESCRIPT_RUNNER_ARGS } from "../../scripts/stack/typescript-runner";

/**
 * The service's logs, read the way ops read them: the real process (APP_ROLE=all, LOG_LEVEL=debug)
 * on a real chain, delivering to a local HTTPS receiver. One request with a chosen x-request-id is
 * followed through acceptance, its transaction, its confirmation and its callbacks (one of which
 * fails once), and then the whole captured output is checked: JSON lines only, the request id on
 * every stage's line, and none of the secrets the process was given anywhere.
 */

const ROOT = join(__dirname, "..", "..");
const REDIS_URL = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";

type LogLine = Record<string, any>;

interface Service {
  stdout: () => string;
  stderr: () => string;
  stop: () => Promise<void>;
}

let database: { url: string; drop: () => Promise<void> };
let service: Service | undefined;
const redisPrefix = `trs-test-logs-${randomBytes(4).toString("hex")}`;

/** What the process is given and must never print. */
const secrets = {
  apiKey: `trk_logs_${randomBytes(24).toString("hex")}`,
  webhookSecretBody: randomBytes(32).toString("base64"),
  adminPassword: `admin-${randomBytes(16).toString("hex")}`,
  databasePassword: "",
};

const chainApp = useChainApp({ receiver: true, app: false });

beforeAll(async () => {
  database = await createTestDatabase();
});

afterAll(async () => {
  await service?.stop();
  await database?.drop();
  await deleteRedisKeys(redisPrefix);
});

/** The database URL with a password in it (the local server trusts loopback, so any password connects). */
function withPassword(url: string): string {
  const parsed = new URL(url);
  if (!parsed.password) parsed.password = `pw${randomBytes(12).toString("hex")}`;
  secrets.databasePassword = decodeURIComponent(parsed.password);
  return parsed.toString();
}

function startService(env: Record<string, string>): Service {
  const child: ChildProcess = spawn(process.execPath, [...TYPESCRIPT_RUNNER_ARGS, "src/main.ts"], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout?.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once("exit", () => resolve());
  });
  return {
    stdout: () => stdout,
    stderr: () => stderr,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
      await exited;
    },
  };
}

/** Every stdout line parsed; throws on the first line that is not a JSON object. */
function parseLines(stdout: string): LogLine[] {
  return stdout
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => {
      const parsed = JSON.parse(line) as unknown;
      if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) throw new Error(`not a JSON object: ${line}`);
      return parsed;
    });
}

const carries = (line: LogLine, requestId: string) => line.requestId === requestId || (Array.isArray(line.requestIds) && line.requestIds.includes(requestId));

describe("structured logs", () => {
  it("carry one request id from the request to its transaction, confirmation and callbacks, as JSON lines without secrets", { timeout: 180_000 }, async () => {
    const [port, opsPort] = [await freePort(), await freePort()];
    const baseUrl = `http://127.0.0.1:${port}`;
    service = startService({
      ...chainApp.chain.env,
      ...DELIVERY_ENV,
      APP_ROLE: "all",
      APP_MODE: "development",
      PORT: String(port),
      OPS_PORT: String(opsPort),
      LOG_LEVEL: "debug",
      DATABASE_URL: withPassword(database.url),
      REDIS_KEY_PREFIX: redisPrefix,
      DEV_TICKETEER_ID: "logs-organization",
      DEV_API_KEY: secrets.apiKey,
      DEV_WEBHOOK_SECRET: `whsec_${secrets.webhookSecretBody}`,
      ADMIN_PASSWORD: secrets.adminPassword,
    });
    const running = service;
    await eventually(
      async () => ((await fetch(`${baseUrl}/health/ready`).catch(() => null))?.ok ? true : undefined),
      90_000,
      `the service to be ready:\n${running.stderr()}`,
    );

    // The event's callback is refused once: the failed attempt must be logged too.
    chainApp.receiver.script("/hooks", [{ status: 500 }], { status: 204 }, (body) => body?.action === "newEvent");
    const requestId = uid("logs-request");
    const eventId = uid("event");
    const api = apiClient(baseUrl, secrets.apiKey);
    const answer = await api.request(
      "POST",
      "/stream",
      [
        { action: "newEvent", data: { eventId, eventName: "Concert", currency: "EUR", callbackUrl: chainApp.receiver.url("/hooks") } },
        { action: "soldTicket", data: { eventId, ticketId: uid("ticket"), price: "10.00", orderTime: 1_750_000_000 } },
      ],
      { "x-request-id": requestId },
    );
    expect(answer.headers.get("x-request-id")).toBe(requestId);
    const promises = actionPromises(answer);
    expect((await allSettled(api, promises)).map((view) => view.status)).toEqual(["confirmed", "confirmed"]);
    await chainApp.receiver.waitForRequests("/hooks", 3);
    // A request with the admin credential: its authorization header must be redacted.
    const basic = Buffer.from(`admin:${secrets.adminPassword}`).toString("base64");
    expect((await fetch(`http://127.0.0.1:${opsPort}/admin/queues`, { headers: { authorization: `Basic ${basic}` } })).status).toBe(200);

    // The key sent where it does not belong (the query, a misspelt header): answered 403, logged, and redacted.
    const misplaced: { path: string; headers?: Record<string, string> }[] = [
      { path: `/api/v1/chain?apiKey=${secrets.apiKey}` },
      { path: `/api/v1/chain?x-api-key=${secrets.apiKey}` },
      { path: `/api/v1/chain?api%5Fkey=${secrets.apiKey}` },
      { path: "/api/v1/chain", headers: { "X-Api_Key": secrets.apiKey } },
      { path: "/api/v1/chain", headers: { authorization: `Bearer ${secrets.apiKey}` } },
    ];
    for (const { path, headers } of misplaced) expect((await fetch(baseUrl + path, { headers })).status, path).toBe(403);

    const deliveredLines = () =>
      parseLines(running.stdout()).filter((line) => line.context === "CallbackDispatcher" && line.requestId === requestId && line.outcome === "delivered");
    await eventually(async () => (deliveredLines().length >= 2 ? true : undefined), 30_000, "both delivered callbacks to be logged");
    await running.stop();

    const stdout = running.stdout();
    const lines = parseLines(stdout);
    expect(lines.every((line) => typeof line.level === "string" && typeof line.time === "string" && typeof line.msg === "string")).toBe(true);

    const requestLine = lines.find((line) => line.requestId === requestId && line.req?.url === "/stream");
    expect(requestLine).toMatchObject({ level: "info", req: { id: requestId, method: "POST" }, res: { statusCode: 200 }, ticketeerId: "logs-organization" });
    expect(requestLine?.req.headers["x-api-key"]).toBe("[redacted]");
    // Logged while the request was handled: the request's context gave the line its id.
    expect(lines.find((line) => line.context === "LedgerService" && line.requestId === requestId)).toMatchObject({ accepted: 2 });

    const sent = lines.find((line) => line.context === "ChainWriter" && line.level === "info" && carries(line, requestId));
    expect(sent).toMatchObject({ actionCount: 2, requestCount: 1, hash: expect.stringMatching(/^0x[0-9a-f]{64}$/), nonce: expect.any(String) });
    const confirmed = lines.find((line) => line.context === "Confirmations" && line.level === "info" && carries(line, requestId));
    expect(confirmed).toMatchObject({ hash: sent?.hash, nonce: sent?.nonce, confirmed: 2, failed: 0, blockNumber: expect.any(Number) });
    const perAction = lines.filter((line) => line.context === "Confirmations" && line.level === "debug" && line.requestId === requestId);
    expect(perAction.map((line) => line.actionId).sort()).toEqual([...promises].sort());

    const deliveries = lines.filter((line) => line.context === "CallbackDispatcher" && line.requestId === requestId);
    expect(deliveries.find((line) => line.outcome === "pending")).toMatchObject({ level: "warn", attempt: 1, statusCode: 500, actionId: promises[0] });
    expect(
      deliveries
        .filter((line) => line.outcome === "delivered")
        .map((line) => [line.actionId, line.attempt])
        .sort(),
    ).toEqual(
      [
        [promises[0], 2],
        [promises[1], 1],
      ].sort(),
    );

    const output = stdout + running.stderr();
    const signerKey = chainApp.chain.signerKeys[0];
    const forbidden = {
      apiKey: secrets.apiKey,
      webhookSecret: `whsec_${secrets.webhookSecretBody}`,
      webhookSecretBody: secrets.webhookSecretBody,
      signerKey,
      signerKeyWithout0x: signerKey.slice(2),
      databasePassword: secrets.databasePassword,
      adminPassword: secrets.adminPassword,
      adminCredential: basic,
    };
    for (const [name, value] of Object.entries(forbidden)) expect(output.includes(value), `${name} appears in the output`).toBe(false);
  });
});

async function deleteRedisKeys(prefix: string): Promise<void> {
  const redis = new Redis(REDIS_URL);
  try {
    const keys = await redis.keys(`${prefix}:*`);
    if (keys.length > 0) await redis.del(...keys);
  } finally {
    redis.disconnect();
  }
}
