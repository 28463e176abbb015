/**
 * The service's configuration: read from the environment once, validated, typed. Nothing else in
 * the service reads `process.env`.
 */
export type AppRole = "all" | "api" | "worker";
export type AppMode = "development" | "production" | "test";

export interface AppConfig {
  app: { mode: AppMode; role: AppRole; port: number; logLevel: string };
  database: { url: string; createIfMissing: boolean; migrateAtBoot: boolean };
  redis: { url: string; keyPrefix: string };
  limits: { ticketItems: number; streamActions: number; ticketBodyBytes: number; streamBodyBytes: number };
  rateLimit: { points: number; durationSeconds: number };
  queue: { sweepIntervalMs: number; sweepMinAgeMs: number };
  chain: { chainId: number | null; registryAddress: string | null; rpcUrl: string | null; confirmations: number };
  dev: { ticketeerId: string | null; apiKey: string | null; organizationName: string };
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((problem) => `  - ${problem}`).join("\n")}`);
    this.name = "ConfigError";
  }
}

type Env = Record<string, string | undefined>;

/** Collects every problem before failing, so one boot shows all of them. */
class EnvReader {
  readonly problems: string[] = [];

  constructor(private readonly env: Env) {}

  string(name: string, fallback: string): string {
    const value = this.env[name];
    return value === undefined || value === "" ? fallback : value;
  }

  optional(name: string): string | null {
    const value = this.env[name];
    return value === undefined || value === "" ? null : value;
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

  oneOf<T extends string>(name: string, allowed: readonly T[], fallback: T): T {
    const raw = this.optional(name);
    if (raw === null) return fallback;
    if ((allowed as readonly string[]).includes(raw)) return raw as T;
    this.problems.push(`${name} must be one of ${allowed.join(", ")}, got "${raw}"`);
    return fallback;
  }

  url(name: string, fallback: string | null, protocols: string[]): string | null {
    const raw = this.optional(name) ?? fallback;
    if (raw === null) return null;
    try {
      const parsed = new URL(raw);
      if (!protocols.includes(parsed.protocol)) this.problems.push(`${name} must use ${protocols.join(" or ")}, got "${parsed.protocol}"`);
    } catch {
      this.problems.push(`${name} must be a URL, got "${raw}"`);
    }
    return raw;
  }
}

export const DEFAULT_DATABASE_URL = "postgres://postgres@127.0.0.1:5432/ticket_registry";
export const DEFAULT_REDIS_URL = "redis://127.0.0.1:6379";

export function loadConfig(env: Env = process.env): AppConfig {
  const read = new EnvReader(env);
  const mode = read.oneOf<AppMode>("APP_MODE", ["development", "production", "test"], env.NODE_ENV === "production" ? "production" : "development");
  const production = mode === "production";
  const config: AppConfig = {
    app: {
      mode,
      role: read.oneOf<AppRole>("APP_ROLE", ["all", "api", "worker"], "all"),
      port: read.integer("PORT", 3000, 0, 65_535),
      logLevel: read.oneOf("LOG_LEVEL", ["fatal", "error", "warn", "info", "debug", "verbose"], "info"),
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
      streamBodyBytes: read.integer("STREAM_BODY_LIMIT_BYTES", 12 * 1024 * 1024, 1024),
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
      chainId: env.CHAIN_ID ? read.integer("CHAIN_ID", 0, 1) : null,
      registryAddress: read.optional("REGISTRY_ADDRESS"),
      rpcUrl: read.url("CHAIN_RPC_URL", null, ["http:", "https:", "ws:", "wss:"]),
      confirmations: read.integer("CONFIRMATIONS", 1, 0, 1_000),
    },
    dev: {
      ticketeerId: read.optional("DEV_TICKETEER_ID"),
      apiKey: read.optional("DEV_API_KEY"),
      organizationName: read.string("DEV_ORGANIZATION_NAME", "Playground"),
    },
  };
  checkDevSeed(config, read.problems);
  if (read.problems.length > 0) throw new ConfigError(read.problems);
  return config;
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
