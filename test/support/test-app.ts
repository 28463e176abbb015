import { randomBytes } from "node:crypto";
import type { AddressInfo } from "node:net";

import type { INestApplication } from "@nestjs/common";
import Redis from "ioredis";

import { OperationsServer } from "../../src/admin/operations-server";
import { createApp } from "../../src/app.setup";
import { OrganizationsService } from "../../src/auth/organizations.service";
import { OrganizationOnboardingService } from "../../src/callbacks/secrets/organization-onboarding.service";
import type { Clock } from "../../src/common/clock";
import { type AppConfig, loadConfig } from "../../src/config/app-config";
import { apiClient } from "./api-client";
import { TEST_ADMIN_PASSWORD } from "./metrics-scrape";
import { OpenApiValidator, validateServerTraffic } from "./openapi-validator";
import { createTestDatabase } from "./test-database";

export interface TestApp {
  app: INestApplication;
  config: AppConfig;
  baseUrl: string;
  /** The operations endpoints (metrics, the queue dashboard, health): the operations port, or a worker's one port. */
  opsUrl: string;
  databaseUrl: string;
  /** An organization with a live key, created for the test file. */
  organization: (ticketeerId?: string) => Promise<{ ticketeerId: string; key: string; prefix: string; webhookSecret: string }>;
  /** A new organization and an API client signed in with its key. */
  client: () => Promise<{ ticketeerId: string; api: ReturnType<typeof apiClient> }>;
  /** What the answers (and the requests answered 2xx) broke of the committed openapi.json, so far. */
  openApiViolations: string[];
  /** Stops the app and cleans up; then throws if any exchange broke the committed openapi.json. */
  close: () => Promise<void>;
}

export interface TestAppOptions {
  /** The app (and the test's queries through it) reaches PostgreSQL on this local port: a TCP proxy the test can cut. */
  databasePort?: number;
  /** The clock the app judges long spans by (WEBHOOK_DISABLE_AFTER_HOURS): a TestClock the test moves on. */
  clock?: Clock;
}

/** The apps started and not closed yet: each file must close its own (see file-leaks.ts). */
const openApps = new Set<TestApp>();

export function openTestApps(): TestApp[] {
  return [...openApps];
}

/** The real application on a fresh database and its own Redis key prefix, listening on a free port. */
export async function startTestApp(env: Record<string, string> = {}, options: TestAppOptions = {}): Promise<TestApp> {
  const database = await createTestDatabase();
  const keyPrefix = `trs-test-${randomBytes(4).toString("hex")}`;
  const databaseUrl = options.databasePort === undefined ? database.url : viaPort(database.url, options.databasePort);
  const config = loadConfig({
    APP_MODE: "test",
    DATABASE_URL: databaseUrl,
    REDIS_KEY_PREFIX: keyPrefix,
    RATE_LIMIT_REQUESTS: "100000",
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? "error",
    // Callbacks go out only in the tests that bring a receiver.
    CALLBACK_DELIVERY: "false",
    // /metrics and the full readiness are behind the admin credential (scrapeMetrics sends it).
    ADMIN_PASSWORD: TEST_ADMIN_PASSWORD,
    OPS_PORT: "0",
    ...env,
  });
  const app = await createApp(config, { clock: options.clock });
  // Every request and answer of the test file goes through the OpenAPI validator (see openapi-validator.ts).
  // Not on a worker: it serves no API (the document's paths answer 404 there), only probes and metrics.
  const traffic =
    config.app.role === "worker"
      ? { violations: [] as string[], settled: () => Promise.resolve() }
      : validateServerTraffic(app.getHttpServer(), await OpenApiValidator.committed());
  await app.listen(0, "127.0.0.1");
  const { port } = app.getHttpServer().address() as AddressInfo;
  const organizations = app.get(OrganizationsService);
  const onboarding = app.get(OrganizationOnboardingService);
  // TLS_CERT_FILE set: the service serves HTTPS itself (localhost's certificate from the test CA, say).
  const scheme = config.http.tlsCertFile ? "https" : "http";
  const baseUrl = `${scheme}://127.0.0.1:${port}`;
  const operations = await app.get(OperationsServer).listen(app);
  const opsUrl = operations ? `${scheme}://127.0.0.1:${operations.port}` : baseUrl;
  const organization = async (ticketeerId = `org-${randomBytes(4).toString("hex")}`) => {
    const { webhookSecret } = await onboarding.createOrganization(ticketeerId, `Organization ${ticketeerId}`);
    return { ticketeerId, webhookSecret, ...(await organizations.issueKey(ticketeerId, "test")) };
  };
  const testApp: TestApp = {
    app,
    config,
    baseUrl,
    opsUrl,
    databaseUrl,
    organization,
    client: async () => {
      const created = await organization();
      return { ticketeerId: created.ticketeerId, api: apiClient(baseUrl, created.key) };
    },
    openApiViolations: traffic.violations,
    close: async () => {
      openApps.delete(testApp);
      await app.close();
      await Promise.race([traffic.settled(), new Promise((resolve) => setTimeout(resolve, 5_000))]);
      await database.drop();
      await deleteRedisKeys(config.redis.url, keyPrefix);
      if (traffic.violations.length > 0) {
        throw new Error(`${traffic.violations.length} exchange(s) broke openapi.json:\n${traffic.violations.join("\n")}`);
      }
    },
  };
  openApps.add(testApp);
  return testApp;
}

function viaPort(url: string, port: number): string {
  const proxied = new URL(url);
  proxied.hostname = "127.0.0.1";
  proxied.port = String(port);
  return proxied.toString();
}

async function deleteRedisKeys(url: string, prefix: string): Promise<void> {
  const redis = new Redis(url);
  try {
    const keys = await redis.keys(`${prefix}:*`);
    if (keys.length > 0) await redis.del(...keys);
  } finally {
    redis.disconnect();
  }
}
