import { describe, expect, it } from "vitest";

import { ConfigError, configVariableNames, DEFAULT_DATABASE_URL, loadConfig } from "./app-config";

describe("loadConfig", () => {
  it("defaults to local PostgreSQL and Redis, the all role, port 3000, development mode", () => {
    const sut = loadConfig({});
    expect(sut.app).toEqual({
      publicBaseUrl: null,
      mode: "development",
      role: "all",
      port: 3000,
      host: "127.0.0.1",
      opsPort: 9464,
      logLevel: "info",
      logFormat: "auto",
      shutdownGraceMs: 0,
    });
    expect(sut.database.url).toBe(DEFAULT_DATABASE_URL);
    expect(sut.database.createIfMissing).toBe(true);
    expect(sut.redis.url).toBe("redis://127.0.0.1:6379");
    expect(sut.limits).toMatchObject({ ticketItems: 100, streamActions: 5000 });
  });

  it("takes PUBLIC_BASE_URL as an http(s) address without query or credentials", () => {
    expect(loadConfig({ PUBLIC_BASE_URL: "https://registry.example.com/base" }).app.publicBaseUrl).toBe("https://registry.example.com/base");
    expect(() => loadConfig({ PUBLIC_BASE_URL: "ftp://registry.example.com" })).toThrow(/PUBLIC_BASE_URL must use http: or https:/);
    expect(() => loadConfig({ PUBLIC_BASE_URL: "https://registry.example.com/?a=1" })).toThrow(/PUBLIC_BASE_URL: .* must have no query/);
  });

  it("reads the registry's deployment block from REGISTRY_FROM_BLOCK, or from its former name VERIFY_FROM_BLOCK", () => {
    expect(loadConfig({}).chain.fromBlock).toBe(0);
    expect(loadConfig({ VERIFY_FROM_BLOCK: "120" }).chain.fromBlock).toBe(120);
    expect(loadConfig({ VERIFY_FROM_BLOCK: "120", REGISTRY_FROM_BLOCK: "130" }).chain.fromBlock).toBe(130);
  });

  it("waits out a shutdown grace in production only, and wants a long admin password", () => {
    expect(
      loadConfig({
        APP_MODE: "production",
        CHAIN_RPC_URL: "http://chain:8545",
        REGISTRY_ADDRESS: "0x5FbDB2315678afecb367f032d93F642f64180aa3",
        APP_ROLE: "api",
        PUBLIC_BASE_URL: "https://tickets.example.com",
        WEBHOOK_SECRETS_KEY: Buffer.alloc(32, 1).toString("base64"),
      }).app.shutdownGraceMs,
    ).toBe(5_000);
    expect(loadConfig({ SHUTDOWN_GRACE_MS: "250" }).app.shutdownGraceMs).toBe(250);
    expect(loadConfig({}).admin).toEqual({ username: "admin", password: null, queueWrite: false, failedSignIns: { points: 10, durationSeconds: 300 } });
    expect(() => loadConfig({ ADMIN_PASSWORD: "short" })).toThrow(/ADMIN_PASSWORD must be at least 16 characters/);
  });

  it("wants the webhook secrets key in production, as base64 of 32 bytes", () => {
    const production = {
      APP_MODE: "production",
      CHAIN_RPC_URL: "https://rpc.example.com",
      REGISTRY_ADDRESS: "0x5FbDB2315678afecb367f032d93F642f64180aa3",
      APP_ROLE: "api",
      PUBLIC_BASE_URL: "https://tickets.example.com",
    };
    expect(() => loadConfig(production)).toThrow("WEBHOOK_SECRETS_KEY is required in production mode");
    expect(() => loadConfig({ WEBHOOK_SECRETS_KEY: Buffer.alloc(16).toString("base64") })).toThrow("WEBHOOK_SECRETS_KEY must be base64 of exactly 32 bytes");
    expect(() => loadConfig({ WEBHOOK_SECRETS_KEY: "not base64!" })).toThrow("WEBHOOK_SECRETS_KEY must be base64 of exactly 32 bytes");
    expect(loadConfig({}).callbacks.secretsKey).toBeNull();
  });

  it("lists every problem at once", () => {
    const error = captureError(() => loadConfig({ PORT: "http", APP_ROLE: "both", DATABASE_URL: "mysql://x", RATE_LIMIT_REQUESTS: "0" }));
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).problems).toEqual([
      'APP_ROLE must be one of all, api, worker, got "both"',
      'PORT must be an integer from 0 to 65535, got "http"',
      'DATABASE_URL must use postgres: or postgresql:, got "mysql:"',
      'RATE_LIMIT_REQUESTS must be an integer from 1 to 9007199254740991, got "0"',
    ]);
  });

  it("reads CONFIRMATIONS as a number of blocks or finalized", () => {
    expect(loadConfig({}).chain.confirmations).toBe(1);
    expect(loadConfig({ CONFIRMATIONS: "12" }).chain.confirmations).toBe(12);
    expect(loadConfig({ CONFIRMATIONS: "finalized" }).chain.confirmations).toBe("finalized");
    expect(() => loadConfig({ CONFIRMATIONS: "safe" })).toThrow('CONFIRMATIONS must be a number of blocks from 1 to 1000 or "finalized", got "safe"');
    expect(() => loadConfig({ CONFIRMATIONS: "0" })).toThrow('CONFIRMATIONS must be an integer from 1 to 1000, got "0"');
  });

  it("refuses the playground seed in production", () => {
    const env = { NODE_ENV: "production", DEV_TICKETEER_ID: "org", DEV_API_KEY: "k".repeat(32) };
    expect(() => loadConfig(env)).toThrow("DEV_TICKETEER_ID and DEV_API_KEY are refused in production mode");
  });

  it("wants the playground ticketeer and key together", () => {
    expect(() => loadConfig({ DEV_TICKETEER_ID: "org" })).toThrow("set both or neither");
    expect(loadConfig({ DEV_TICKETEER_ID: "org", DEV_API_KEY: "k".repeat(32) }).dev.ticketeerId).toBe("org");
  });

  it("does not create databases in production unless told to", () => {
    const production = {
      APP_MODE: "production",
      CHAIN_RPC_URL: "https://rpc.example.com",
      REGISTRY_ADDRESS: "0x5FbDB2315678afecb367f032d93F642f64180aa3",
      APP_ROLE: "api",
      PUBLIC_BASE_URL: "https://tickets.example.com",
      WEBHOOK_SECRETS_KEY: Buffer.alloc(32, 1).toString("base64"),
    };
    expect(loadConfig(production).database.createIfMissing).toBe(false);
  });

  it("keeps the callbacks' retry schedule and allow-list out of production", () => {
    expect(loadConfig({}).callbacks).toMatchObject({ retryScale: 1, allowHosts: [], timeoutMs: 15_000, maxAttempts: 12 });
    expect(loadConfig({ CALLBACK_RETRY_SCALE: "0.01", CALLBACK_ALLOW_HOSTS: "LocalHost, receiver.test" }).callbacks).toMatchObject({
      retryScale: 0.01,
      allowHosts: ["localhost", "receiver.test"],
    });
    expect(() => loadConfig({ CALLBACK_RETRY_SCALE: "0" })).toThrow('CALLBACK_RETRY_SCALE must be a number from 0.0001 to 1, got "0"');
    expect(() => loadConfig({ CALLBACK_RETRY_SCALE: "fast" })).toThrow("CALLBACK_RETRY_SCALE must be a number");
    const production = {
      APP_MODE: "production",
      CHAIN_RPC_URL: "https://rpc.example.com",
      REGISTRY_ADDRESS: "0x5FbDB2315678afecb367f032d93F642f64180aa3",
      APP_ROLE: "api",
      PUBLIC_BASE_URL: "https://tickets.example.com",
      WEBHOOK_SECRETS_KEY: Buffer.alloc(32, 1).toString("base64"),
    };
    expect(() => loadConfig({ ...production, CALLBACK_RETRY_SCALE: "0.5" })).toThrow(
      "CALLBACK_RETRY_SCALE shortens the callbacks' retry schedule: refused in production mode",
    );
    expect(() => loadConfig({ ...production, CALLBACK_ALLOW_HOSTS: "localhost" })).toThrow("CALLBACK_ALLOW_HOSTS lets callbacks reach private addresses");
    expect(loadConfig({ ...production, CALLBACK_RETRY_SCALE: "1" }).callbacks.retryScale).toBe(1);
  });

  it("reads the DNS servers delivery resolves with and the lookup's deadline (a third of the attempt's timeout, at most 5 s, by default)", () => {
    expect(loadConfig({}).callbacks).toMatchObject({ dnsServers: [], dnsTimeoutMs: 5_000 });
    expect(loadConfig({ CALLBACK_TIMEOUT_MS: "3000" }).callbacks.dnsTimeoutMs).toBe(1_000);
    expect(loadConfig({ CALLBACK_DNS_SERVERS: "10.0.0.53, 10.0.0.54:5353, ::1, [::1]:53", CALLBACK_DNS_TIMEOUT_MS: "2000" }).callbacks).toMatchObject({
      dnsServers: ["10.0.0.53", "10.0.0.54:5353", "::1", "[::1]:53"],
      dnsTimeoutMs: 2_000,
    });
    expect(() => loadConfig({ CALLBACK_DNS_SERVERS: "10.0.0.53,dns.example.com" })).toThrow(
      'CALLBACK_DNS_SERVERS entry "dns.example.com" is not an IP address with an optional port',
    );
    expect(() => loadConfig({ CALLBACK_DNS_TIMEOUT_MS: "15000" })).toThrow("CALLBACK_DNS_TIMEOUT_MS must be shorter than CALLBACK_TIMEOUT_MS");
  });
});

describe("configVariableNames", () => {
  it("names exactly the variables loadConfig looks up, NODE_ENV included", () => {
    const looked = new Set<string>();
    const env = new Proxy<Record<string, string | undefined>>(
      {},
      {
        get: (_target, name) => {
          if (typeof name === "string") looked.add(name);
          return undefined;
        },
      },
    );
    loadConfig(env);
    expect(configVariableNames()).toEqual([...looked].sort());
    expect(configVariableNames()).toEqual(expect.arrayContaining(["NODE_ENV", "APP_MODE", "DATABASE_URL", "SIGNER_PRIVATE_KEYS"]));
    expect(configVariableNames()).not.toContain("DATABASE_URI");
  });
});

function captureError(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  throw new Error("expected an error");
}
