/**
 * The service's configuration: read from the environment once, validated, typed. Nothing else in
 * the service reads `process.env`.
 */
import { parseEther } from "ethers";

export type AppRole = "all" | "api" | "worker";
export type AppMode = "development" | "production" | "test";

export interface AppConfig {
  app: { mode: AppMode; role: AppRole; port: number; logLevel: string; shutdownGraceMs: number };
  database: { url: string; createIfMissing: boolean; migrateAtBoot: boolean };
  redis: { url: string; keyPrefix: string };
  limits: { ticketItems: number; streamActions: number; ticketBodyBytes: number; streamBodyBytes: number };
  rateLimit: { points: number; durationSeconds: number };
  queue: { sweepIntervalMs: number; sweepMinAgeMs: number };
  chain: ChainConfig;
  callbacks: {
    deliver: boolean;
    concurrency: number;
    timeoutMs: number;
    leaseMs: number;
    pollMs: number;
    allowHosts: string[];
    maxAttempts: number;
    /** Multiplies the retry schedule's delays (not a receiver's Retry-After): tests shrink it; production keeps 1. */
    retryScale: number;
    /** AES-256 key (base64 of 32 bytes) that encrypts the webhook signing secrets at rest; required in production. */
    secretsKey: string | null;
  };
  dev: { ticketeerId: string | null; apiKey: string | null; organizationName: string; webhookSecret: string | null };
  /** The queue dashboard's credential; no password, no dashboard. */
  admin: { username: string; password: string | null };
}

export interface ChainConfig {
  /** Null: no chain configured; actions wait in the ledger (npm start provides an embedded chain). */
  rpcUrl: string | null;
  registryAddress: string | null;
  /** Set by the embedded development start: its RPC URL may be shown to integrators. */
  embedded: boolean;
  signerKeys: string[];
  confirmations: number;
  writer: {
    maxWaitMs: number;
    txGasCap: number;
    blockGasShare: number;
    maxInFlightPerSigner: number;
    stuckAfterMs: number;
    feeBumpPercent: number;
    pollIntervalMs: number;
    maxRevertedAttempts: number;
  };
  /** The worker's watch over its signers' balances: how often, and a balance no signer should go below. */
  funds: { checkIntervalMs: number; minimumWei: bigint };
  /** Test-only fault injection: the worker kills itself at this point of the write path. */
  crashAt: "after-persist" | "after-broadcast" | null;
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((problem) => `  - ${problem}`).join("\n")}`);
    this.name = "ConfigError";
  }
}

type Env = Record<string, string | undefined>;

/** Every variable name an EnvReader has been asked for: see configVariableNames. */
const VARIABLES_READ = new Set<string>();

/** Collects every problem before failing, so one boot shows all of them. */
class EnvReader {
  readonly problems: string[] = [];

  constructor(private readonly env: Env) {}

  string(name: string, fallback: string): string {
    const value = this.value(name);
    return value === undefined || value === "" ? fallback : value;
  }

  optional(name: string): string | null {
    const value = this.value(name);
    return value === undefined || value === "" ? null : value;
  }

  private value(name: string): string | undefined {
    VARIABLES_READ.add(name);
    return this.env[name];
  }

  integer(name: string, fallback: number, min: number, max = Number.MAX_SAFE_INTEGER): number {
    const raw = this.optional(name);
    if (raw === null) return fallback;
    const value = Number(raw);
    if (!/^\d+$/.test(raw) || value < min || value > max) {
      this.problems.push(`${name} must be an integer from ${min} to ${max}, got "${raw}"`);
      return fallback;
    }
    return value;
  }

  boolean(name: string, fallback: boolean): boolean {
    const raw = this.optional(name);
    if (raw === null) return fallback;
    if (raw === "true" || raw === "1") return true;
    if (raw === "false" || raw === "0") return false;
    this.problems.push(`${name} must be true or false, got "${raw}"`);
    return fallback;
  }

  /** A decimal number such as 0.01. */
  decimal(name: string, fallback: number, min: number, max: number): number {
    const raw = this.optional(name);
    if (raw === null) return fallback;
    const value = Number(raw);
    if (!/^\d+(\.\d+)?$/.test(raw) || value < min || value > max) {
      this.problems.push(`${name} must be a number from ${min} to ${max}, got "${raw}"`);
      return fallback;
    }
    return value;
  }

  oneOf<T extends string>(name: string, allowed: readonly T[], fallback: T): T {
    const raw = this.optional(name);
    if (raw === null) return fallback;
    if ((allowed as readonly string[]).includes(raw)) return raw as T;
    this.problems.push(`${name} must be one of ${allowed.join(", ")}, got "${raw}"`);
    return fallback;
  }

  list(name: string): string[] {
    return (this.optional(name) ?? "")
      .split(",")
      .map((item) => item.trim())
      .filter((item) => item !== "");
  }

  url(name: string, fallback: string | null, protocols: string[]): string | null {
    const raw = this.optional(name) ?? fallback;
    if (raw === null) return null;
    try {
      const parsed = new URL(raw);
      if (!protocols.includes(parsed.protocol)) this.problems.push(`${name} must use ${protocols.join(" or ")}, got "${parsed.protocol}"`);
    } catch {
      // Not echoed: a URL may carry a password.
      this.problems.push(`${name} must be a URL`);
    }
    return raw;
  }
}

export const DEFAULT_DATABASE_URL = "postgres://postgres@127.0.0.1:5432/ticket_registry";
const MIN_ADMIN_PASSWORD_LENGTH = 16;
export const DEFAULT_REDIS_URL = "redis://127.0.0.1:6379";

/**
 * The names of the environment variables the service reads, so that a deployment file setting any
 * other (a typo, a variable that was removed) can be caught. Every read goes through EnvReader.
 */
export function configVariableNames(): string[] {
  try {
    loadConfig({});
  } catch (error) {
    // Names are recorded as they are read, before validation: a refused default still names them all.
    if (!(error instanceof ConfigError)) throw error;
  }
  return [...VARIABLES_READ].sort();
}

export function loadConfig(env: Env = process.env): AppConfig {
  const read = new EnvReader(env);
  const mode = read.oneOf<AppMode>("APP_MODE", ["development", "production", "test"], read.optional("NODE_ENV") === "production" ? "production" : "development");
  const production = mode === "production";
  const config: AppConfig = {
    app: {
      mode,
      role: read.oneOf<AppRole>("APP_ROLE", ["all", "api", "worker"], "all"),
      port: read.integer("PORT", 3000, 0, 65_535),
      logLevel: read.oneOf("LOG_LEVEL", ["fatal", "error", "warn", "info", "debug", "verbose"], "info"),
      shutdownGraceMs: read.integer("SHUTDOWN_GRACE_MS", production ? 5_000 : 0, 0, 120_000),
    },
    database: {
      url: read.url("DATABASE_URL", DEFAULT_DATABASE_URL, ["postgres:", "postgresql:"]) as string,
      createIfMissing: read.boolean("DATABASE_CREATE_IF_MISSING", !production),
      migrateAtBoot: read.boolean("MIGRATE_AT_BOOT", true),
    },
    redis: {
      url: read.url("REDIS_URL", DEFAULT_REDIS_URL, ["redis:", "rediss:"]) as string,
      keyPrefix: read.string("REDIS_KEY_PREFIX", "ticket-registry"),
    },
    limits: {
      ticketItems: 100,
      streamActions: 5000,
      ticketBodyBytes: read.integer("TICKET_BODY_LIMIT_BYTES", 256 * 1024, 1024),
      streamBodyBytes: read.integer("STREAM_BODY_LIMIT_BYTES", 16 * 1024 * 1024, 1024),
    },
    rateLimit: {
      points: read.integer("RATE_LIMIT_REQUESTS", 600, 1),
      durationSeconds: read.integer("RATE_LIMIT_WINDOW_SECONDS", 60, 1),
    },
    queue: {
      sweepIntervalMs: read.integer("SWEEP_INTERVAL_MS", 30_000, 100),
      sweepMinAgeMs: read.integer("SWEEP_MIN_AGE_MS", 10_000, 0),
    },
    chain: {
      rpcUrl: read.url("CHAIN_RPC_URL", null, ["http:", "https:"]),
      registryAddress: read.optional("REGISTRY_ADDRESS"),
      embedded: read.boolean("CHAIN_EMBEDDED", false),
      signerKeys: read.list("SIGNER_PRIVATE_KEYS"),
      confirmations: read.integer("CONFIRMATIONS", 1, 1, 1_000),
      writer: {
        maxWaitMs: read.integer("BATCH_MAX_WAIT_MS", 300, 0, 60_000),
        txGasCap: read.integer("TX_GAS_CAP", 15_000_000, 100_000),
        blockGasShare: read.integer("BLOCK_GAS_SHARE_PERCENT", 50, 1, 100) / 100,
        maxInFlightPerSigner: read.integer("MAX_IN_FLIGHT_PER_SIGNER", 8, 1, 64),
        stuckAfterMs: read.integer("STUCK_TX_AFTER_MS", 30_000, 100),
        feeBumpPercent: read.integer("FEE_BUMP_PERCENT", 15, 10, 500),
        pollIntervalMs: read.integer("RECEIPT_POLL_MS", 500, 20, 60_000),
        maxRevertedAttempts: read.integer("MAX_REVERTED_ATTEMPTS", 3, 1, 100),
      },
      funds: {
        checkIntervalMs: read.integer("SIGNER_FUNDS_CHECK_MS", 60_000, 100, 3_600_000),
        minimumWei: readCoinAmount(read, "SIGNER_MIN_BALANCE"),
      },
      crashAt: read.oneOf<"after-persist" | "after-broadcast" | "">("CHAIN_WRITER_CRASH_AT", ["after-persist", "after-broadcast", ""], "") || null,
    },
    callbacks: {
      deliver: read.boolean("CALLBACK_DELIVERY", true),
      concurrency: read.integer("CALLBACK_CONCURRENCY", 400, 1, 10_000),
      timeoutMs: read.integer("CALLBACK_TIMEOUT_MS", 15_000, 100, 120_000),
      leaseMs: read.integer("CALLBACK_LEASE_MS", 60_000, 1_000),
      pollMs: read.integer("CALLBACK_POLL_MS", 200, 10, 60_000),
      allowHosts: read.list("CALLBACK_ALLOW_HOSTS").map((host) => host.toLowerCase()),
      maxAttempts: read.integer("CALLBACK_MAX_ATTEMPTS", 12, 1, 100),
      retryScale: read.decimal("CALLBACK_RETRY_SCALE", 1, 0.0001, 1),
      secretsKey: read.optional("WEBHOOK_SECRETS_KEY"),
    },
    dev: {
      webhookSecret: read.optional("DEV_WEBHOOK_SECRET"),
      ticketeerId: read.optional("DEV_TICKETEER_ID"),
      apiKey: read.optional("DEV_API_KEY"),
      organizationName: read.string("DEV_ORGANIZATION_NAME", "Playground"),
    },
    admin: {
      username: read.string("ADMIN_USERNAME", "admin"),
      password: read.optional("ADMIN_PASSWORD"),
    },
  };
  checkDevSeed(config, read.problems);
  checkChain(config, read.problems);
  if (config.app.mode === "production" && config.callbacks.allowHosts.length > 0) {
    read.problems.push("CALLBACK_ALLOW_HOSTS lets callbacks reach private addresses: refused in production mode");
  }
  if (config.app.mode === "production" && config.callbacks.retryScale !== 1) {
    read.problems.push("CALLBACK_RETRY_SCALE shortens the callbacks' retry schedule: refused in production mode");
  }
  if (config.app.mode === "production" && config.dev.webhookSecret) read.problems.push("DEV_WEBHOOK_SECRET is refused in production mode");
  checkSecretsKey(config, read.problems);
  if (config.admin.password !== null && config.admin.password.length < MIN_ADMIN_PASSWORD_LENGTH) {
    read.problems.push(`ADMIN_PASSWORD must be at least ${MIN_ADMIN_PASSWORD_LENGTH} characters`);
  }
  if (config.callbacks.leaseMs <= config.callbacks.timeoutMs) read.problems.push("CALLBACK_LEASE_MS must be longer than CALLBACK_TIMEOUT_MS");
  if (read.problems.length > 0) throw new ConfigError(read.problems);
  return config;
}

/** Webhook secrets are stored encrypted wherever it matters: production refuses to store them readable. */
function checkSecretsKey(config: AppConfig, problems: string[]): void {
  const key = config.callbacks.secretsKey;
  if (key === null) {
    if (config.app.mode === "production") problems.push("WEBHOOK_SECRETS_KEY is required in production mode (base64 of 32 random bytes: openssl rand -base64 32)");
    return;
  }
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(key) || Buffer.from(key, "base64").length !== 32) {
    problems.push("WEBHOOK_SECRETS_KEY must be base64 of exactly 32 bytes (openssl rand -base64 32)");
  }
}

/** The playground seed is for a developer's machine only; production refuses it outright. */
function checkDevSeed(config: AppConfig, problems: string[]): void {
  const { ticketeerId, apiKey } = config.dev;
  if (config.app.mode === "production" && (ticketeerId || apiKey)) {
    problems.push("DEV_TICKETEER_ID and DEV_API_KEY are refused in production mode");
  }
  if ((ticketeerId === null) !== (apiKey === null)) {
    problems.push("DEV_TICKETEER_ID and DEV_API_KEY go together: set both or neither");
  }
  if (apiKey !== null && apiKey.length < 24) problems.push("DEV_API_KEY must be at least 24 characters");
}

/** A chain needs its registry everywhere, and signer keys where the writer runs. */
function checkChain(config: AppConfig, problems: string[]): void {
  const { chain, app } = config;
  if (chain.registryAddress !== null && !/^0x[0-9a-fA-F]{40}$/.test(chain.registryAddress)) {
    problems.push("REGISTRY_ADDRESS must be a 0x-prefixed 20-byte address");
  }
  for (const [index, key] of chain.signerKeys.entries()) {
    if (!/^0x[0-9a-fA-F]{64}$/.test(key)) problems.push(`SIGNER_PRIVATE_KEYS entry ${index + 1} is not a 0x-prefixed 32-byte hex key`);
  }
  if (new Set(chain.signerKeys.map((key) => key.toLowerCase())).size !== chain.signerKeys.length) {
    problems.push("SIGNER_PRIVATE_KEYS lists a key twice");
  }
  if (chain.rpcUrl === null) {
    if (app.mode === "production") problems.push("CHAIN_RPC_URL is required in production mode");
    return;
  }
  if (chain.registryAddress === null) problems.push("REGISTRY_ADDRESS is required with CHAIN_RPC_URL");
  if (app.role !== "api" && chain.signerKeys.length === 0) problems.push("SIGNER_PRIVATE_KEYS is required where the chain writer runs (APP_ROLE worker or all)");
  if (chain.crashAt !== null && app.mode === "production") problems.push("CHAIN_WRITER_CRASH_AT is a test hook and is refused in production mode");
}

/** An amount of the chain's native coin with up to 18 decimals ("0.5"), in wei; 0 when unset. */
function readCoinAmount(read: EnvReader, name: string): bigint {
  const raw = read.optional(name);
  if (raw === null) return 0n;
  if (!/^\d+(\.\d{1,18})?$/.test(raw)) {
    read.problems.push(`${name} must be an amount of the native coin such as 0.5 (at most 18 decimals), got "${raw}"`);
    return 0n;
  }
  return parseEther(raw);
}
