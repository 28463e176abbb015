import { randomBytes } from "node:crypto";
import type { AddressInfo } from "node:net";

import type { INestApplication } from "@nestjs/common";
import Redis from "ioredis";

import { createApp } from "../../src/app.setup";
import { OrganizationsService } from "../../src/auth/organizations.service";
import { OrganizationOnboardingService } from "../../src/callbacks/secrets/organization-onboarding.service";
import { type AppConfig, loadConfig } from "../../src/config/app-config";
import { apiClient } from "./api-client";
import { createTestDatabase } from "./test-database";

export interface TestApp {
  app: INestApplication;
  config: AppConfig;
  baseUrl: string;
  databaseUrl: string;
  /** An organization with a live key, created for the test file. */
  organization: (ticketeerId?: string) => Promise<{ ticketeerId: string; key: string; prefix: string; webhookSecret: string }>;
  /** A new organization and an API client signed in with its key. */
  client: () => Promise<{ ticketeerId: string; api: ReturnType<typeof apiClient> }>;
  close: () => Promise<void>;
}

/** The real application on a fresh database and its own Redis key prefix, listening on a free port. */
export async function startTestApp(env: Record<string, string> = {}): Promise<TestApp> {
  const database = await createTestDatabase();
  const keyPrefix = `trs-test-${randomBytes(4).toString("hex")}`;
  const config = loadConfig({
    APP_MODE: "test",
    DATABASE_URL: database.url,
    REDIS_KEY_PREFIX: keyPrefix,
    RATE_LIMIT_REQUESTS: "100000",
    LOG_LEVEL: "error",
    // Callbacks go out only in the tests that bring a receiver.
    CALLBACK_DELIVERY: "false",
    ...env,
  });
  const app = await createApp(config);
  await app.listen(0, "127.0.0.1");
  const { port } = app.getHttpServer().address() as AddressInfo;
  const organizations = app.get(OrganizationsService);
  const onboarding = app.get(OrganizationOnboardingService);
  const baseUrl = `http://127.0.0.1:${port}`;
  const organization = async (ticketeerId = `org-${randomBytes(4).toString("hex")}`) => {
    const { webhookSecret } = await onboarding.createOrganization(ticketeerId, `Organization ${ticketeerId}`);
    return { ticketeerId, webhookSecret, ...(await organizations.issueKey(ticketeerId, "test")) };
  };
  return {
    app,
    config,
    baseUrl,
    databaseUrl: database.url,
    organization,
    client: async () => {
      const created = await organization();
      return { ticketeerId: created.ticketeerId, api: apiClient(baseUrl, created.key) };
    },
    close: async () => {
      await app.close();
      await database.drop();
      await deleteRedisKeys(config.redis.url, keyPrefix);
    },
  };
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
