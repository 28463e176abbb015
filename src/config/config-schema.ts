import { Resolver } from "node:dns";

import { MAX_JSON_DEPTH } from "../common/http/json-nesting";
import type { AppConfig, AppMode, AppRole, LogFormatSetting } from "./config-types";
import type { VariableParser } from "./variable-parser";

export const DEFAULT_DATABASE_URL = "postgres://postgres@127.0.0.1:5432/ticket_registry";
export const DEFAULT_REDIS_URL = "redis://127.0.0.1:6379";

/**
 * Every variable the service reads: its name, type, bounds and default. The sections are read in
 * this order, which is the order their problems are listed in. Rules across variables are in
 * config-checks.ts.
 */
export function readConfig(parse: VariableParser): AppConfig {
  const mode = parse.oneOf<AppMode>(
    "APP_MODE",
    ["development", "production", "test"],
    parse.optional("NODE_ENV") === "production" ? "production" : "development",
  );
  const production = mode === "production";
  return {
    app: {
      mode,
      role: parse.oneOf<AppRole>("APP_ROLE", ["all", "api", "worker"], "all"),
      port: parse.integer("PORT", 3000, 0, 65_535),
      // Loopback unless told otherwise: the container files set 0.0.0.0, where the network namespace is the boundary.
      host: parse.string("HOST", "127.0.0.1"),
      opsPort: parse.integer("OPS_PORT", 9464, 0, 65_535),
      logLevel: parse.oneOf("LOG_LEVEL", ["fatal", "error", "warn", "info", "debug", "verbose"], "info"),
      // Only a developer's process guesses from its terminal; a deployment and the tests log JSON unless told otherwise.
      logFormat: parse.oneOf<LogFormatSetting>("LOG_FORMAT", ["auto", "json", "pretty"], mode === "development" ? "auto" : "json"),
      shutdownGraceMs: parse.integer("SHUTDOWN_GRACE_MS", production ? 5_000 : 0, 0, 120_000),
      publicBaseUrl: parse.url("PUBLIC_BASE_URL", null, ["http:", "https:"]),
    },
    http: {
      tlsCertFile: parse.optional("TLS_CERT_FILE"),
      tlsKeyFile: parse.optional("TLS_KEY_FILE"),
      trustProxy: parse.list("TRUST_PROXY"),
      // Both roles: the operations endpoints take the admin credential, which must not cross a network in clear.
      requireHttps: parse.boolean("REQUIRE_HTTPS", production),
      // Node's own defaults (60 s, 300 s) let a slow client hold a connection for minutes.
      headersTimeoutMs: parse.integer("HTTP_HEADERS_TIMEOUT_MS", 15_000, 100, 600_000),
      requestTimeoutMs: parse.integer("HTTP_REQUEST_TIMEOUT_MS", 60_000, 100, 3_600_000),
    },
    database: {
      url: parse.url("DATABASE_URL", DEFAULT_DATABASE_URL, ["postgres:", "postgresql:"]) as string,
      createIfMissing: parse.boolean("DATABASE_CREATE_IF_MISSING", !production),
      migrateAtBoot: parse.boolean("MIGRATE_AT_BOOT", true),
    },
    redis: {
      url: parse.url("REDIS_URL", DEFAULT_REDIS_URL, ["redis:", "rediss:"]) as string,
      keyPrefix: parse.string("REDIS_KEY_PREFIX", "ticket-registry"),
    },
    limits: {
      ticketItems: 100,
      streamActions: 5000,
      // 100 sale items with every field, metadata included, at its limit take 1.6 MB; twice that, for JSON's escapes.
      ticketBodyBytes: parse.integer("TICKET_BODY_LIMIT_BYTES", 4 * 1024 * 1024, 1024),
      streamBodyBytes: parse.integer("STREAM_BODY_LIMIT_BYTES", 16 * 1024 * 1024, 1024),
      jsonDepth: MAX_JSON_DEPTH,
      // Sized from the on-sale benchmark's queue (bench/README.md): twice the most it holds at its best speed.
      organizationQueuedActions: parse.integer("ORG_MAX_QUEUED_ACTIONS", 1_000_000, 1),
    },
    // Sized from the on-sale benchmark (bench/README.md): 10 clients sending 100 tickets a request on
    // one key reach 50 to 100 requests/s; the default admits twice the best of them.
    rateLimit: {
      points: parse.integer("RATE_LIMIT_REQUESTS", 4_000, 1),
      durationSeconds: parse.integer("RATE_LIMIT_WINDOW_SECONDS", 10, 1),
      // Twice the most actions/s the benchmarks send on one key (bench:scale's two apis: 16,832).
      actions: parse.integer("RATE_LIMIT_ACTIONS", 350_000, 1),
    },
    // A 5,000-item /stream answered in full (UUID ids) is about 800 KB; see docs/integrators/idempotency.md.
    idempotency: {
      maxAnswerBytes: parse.integer("IDEMPOTENCY_MAX_ANSWER_BYTES", 1024 * 1024, 1024, 64 * 1024 * 1024),
      maxKeysPerOrganization: parse.integer("IDEMPOTENCY_MAX_KEYS_PER_ORGANIZATION", 100_000, 10, 10_000_000),
    },
    statusReadLimit: {
      points: parse.integer("STATUS_RATE_LIMIT_REQUESTS", 2_000, 1),
      durationSeconds: parse.integer("STATUS_RATE_LIMIT_WINDOW_SECONDS", 10, 1),
    },
    // A year and a day: a calendar year's statement in one request, leap years included.
    usage: { maxRangeDays: parse.integer("USAGE_MAX_RANGE_DAYS", 366, 1, 3_660) },
    verifyPage: {
      points: parse.integer("VERIFY_RATE_LIMIT_REQUESTS", 30, 1),
      durationSeconds: parse.integer("VERIFY_RATE_LIMIT_WINDOW_SECONDS", 60, 1),
    },
    tokenMetadata: {
      points: parse.integer("METADATA_RATE_LIMIT_REQUESTS", 1_200, 1),
      durationSeconds: parse.integer("METADATA_RATE_LIMIT_WINDOW_SECONDS", 60, 1),
      headMaxAgeMs: parse.integer("METADATA_HEAD_MAX_AGE_MS", 1_000, 50, 60_000),
      cacheWindows: parse.integer("METADATA_CACHE_WINDOWS", 4_096, 16, 1_000_000),
      cacheMisses: parse.integer("METADATA_CACHE_MISSES", 1_024, 16, 1_000_000),
      collection: {
        description: parse.string("COLLECTION_DESCRIPTION", "Event tickets, each mirrored on chain as it is sold, resold, checked in, invalidated or claimed."),
        imageUrl: parse.string("COLLECTION_IMAGE_URL", ""),
        externalLink: parse.url("COLLECTION_EXTERNAL_LINK", null, ["http:", "https:"]),
      },
    },
    queue: {
      sweepIntervalMs: parse.integer("SWEEP_INTERVAL_MS", 30_000, 100),
      sweepMinAgeMs: parse.integer("SWEEP_MIN_AGE_MS", 10_000, 0),
      keepFinishedJobs: parse.integer("QUEUE_KEEP_FINISHED_JOBS", 100, 0, 100_000),
    },
    chain: readChain(parse),
    callbacks: readCallbacks(parse),
    // What the service needs forever is kept whatever these say (docs/operators/operations.md#retention).
    retention: {
      callbackDays: parse.integer("CALLBACK_RETENTION_DAYS", 30, 1, 3_650),
      rawTransactionHours: parse.integer("RAW_TX_RETENTION_HOURS", 24, 1, 87_600),
    },
    dev: {
      webhookSecret: parse.optional("DEV_WEBHOOK_SECRET"),
      ticketeerId: parse.optional("DEV_TICKETEER_ID"),
      apiKey: parse.optional("DEV_API_KEY"),
      organizationName: parse.string("DEV_ORGANIZATION_NAME", "Playground"),
    },
    admin: {
      username: parse.string("ADMIN_USERNAME", "admin"),
      password: parse.optional("ADMIN_PASSWORD"),
      queueWrite: parse.boolean("ADMIN_QUEUE_WRITE", false),
      failedSignIns: {
        points: parse.integer("ADMIN_MAX_FAILED_SIGN_INS", 10, 1, 10_000),
        durationSeconds: parse.integer("ADMIN_FAILED_SIGN_IN_WINDOW_SECONDS", 300, 1, 86_400),
      },
    },
  };
}

function readChain(parse: VariableParser): AppConfig["chain"] {
  const rpcUrls = readRpcUrls(parse);
  return {
    rpcUrl: rpcUrls[0] ?? null,
    rpcUrls,
    rpcHeaders: parse.headers("CHAIN_RPC_HEADERS"),
    registryAddress: parse.optional("REGISTRY_ADDRESS"),
    // VERIFY_FROM_BLOCK is its name from before the token metadata and the transfer follower read logs too.
    fromBlock: parse.integer("REGISTRY_FROM_BLOCK", parse.integer("VERIFY_FROM_BLOCK", 0, 0), 0),
    transfers: {
      pollIntervalMs: parse.integer("TRANSFER_POLL_MS", 2_000, 20, 600_000),
      maxBlockRange: parse.integer("TRANSFER_MAX_BLOCK_RANGE", 2_000, 1, 1_000_000),
    },
    embedded: parse.boolean("CHAIN_EMBEDDED", false),
    signerKeys: parse.list("SIGNER_PRIVATE_KEYS"),
    signerRemoteUrl: parse.url("SIGNER_REMOTE_URL", null, ["http:", "https:"]),
    signerAddresses: parse.list("SIGNER_ADDRESSES"),
    confirmations: readConfirmations(parse),
    writer: {
      maxWaitMs: parse.integer("BATCH_MAX_WAIT_MS", 300, 0, 60_000),
      txGasCap: parse.integer("TX_GAS_CAP", 15_000_000, 100_000),
      // geth and bor refuse a transaction over 128 KiB ("oversized data"); the default keeps 4 KiB of margin.
      txMaxBytes: parse.integer("TX_MAX_BYTES", 126_976, 4_096, 131_072),
      blockGasShare: parse.integer("BLOCK_GAS_SHARE_PERCENT", 50, 1, 100) / 100,
      maxInFlightPerSigner: parse.integer("MAX_IN_FLIGHT_PER_SIGNER", 8, 1, 64),
      stuckAfterMs: parse.integer("STUCK_TX_AFTER_MS", 30_000, 100),
      signerStuckAfterMs: parse.integer("SIGNER_STUCK_AFTER_MS", 120_000, 100),
      feeBumpPercent: parse.integer("FEE_BUMP_PERCENT", 15, 10, 500),
      pollIntervalMs: parse.integer("RECEIPT_POLL_MS", 500, 20, 60_000),
      maxRevertedAttempts: parse.integer("MAX_REVERTED_ATTEMPTS", 3, 1, 100),
    },
    fees: {
      minPriorityFeeWei: parse.gwei("MIN_PRIORITY_FEE_GWEI") ?? 0n,
      maxFeePerGasWei: parse.gwei("MAX_FEE_PER_GAS_GWEI"),
    },
    funds: {
      checkIntervalMs: parse.integer("SIGNER_FUNDS_CHECK_MS", 60_000, 100, 3_600_000),
      minimumWei: parse.coinAmount("SIGNER_MIN_BALANCE"),
    },
    crashAt: parse.oneOf<"after-persist" | "after-broadcast" | "">("CHAIN_WRITER_CRASH_AT", ["after-persist", "after-broadcast", ""], "") || null,
  };
}

/** CHAIN_RPC_URLS (in order of preference) or the single CHAIN_RPC_URL; not both. */
function readRpcUrls(parse: VariableParser): string[] {
  const single = parse.url("CHAIN_RPC_URL", null, ["http:", "https:"]);
  const several = parse.urlList("CHAIN_RPC_URLS", ["http:", "https:"]);
  if (single !== null && several.length > 0) parse.problems.push("CHAIN_RPC_URL and CHAIN_RPC_URLS: set one of them, not both");
  return several.length > 0 ? several : single === null ? [] : [single];
}

/** CONFIRMATIONS: a depth in blocks (1: the block that mined the batch suffices), or "finalized": the node's finalized block tag. */
function readConfirmations(parse: VariableParser): number | "finalized" {
  const raw = parse.optional("CONFIRMATIONS");
  if (raw === "finalized") return "finalized";
  if (raw !== null && !/^\d+$/.test(raw)) {
    parse.problems.push(`CONFIRMATIONS must be a number of blocks from 1 to 1000 or "finalized", got "${raw}"`);
    return 1;
  }
  return parse.integer("CONFIRMATIONS", 1, 1, 1_000);
}

/** CALLBACK_DNS_SERVERS: each entry as dns.Resolver#setServers takes it (`1.2.3.4`, `1.2.3.4:53`, `::1`, `[::1]:53`). */
function readDnsServers(parse: VariableParser): string[] {
  const servers = parse.list("CALLBACK_DNS_SERVERS");
  for (const server of servers) {
    try {
      new Resolver().setServers([server]);
    } catch {
      parse.problems.push(`CALLBACK_DNS_SERVERS entry "${server}" is not an IP address with an optional port (1.2.3.4, 1.2.3.4:53, [::1]:53)`);
    }
  }
  return servers;
}

function readCallbacks(parse: VariableParser): AppConfig["callbacks"] {
  const timeoutMs = parse.integer("CALLBACK_TIMEOUT_MS", 15_000, 100, 120_000);
  return {
    deliver: parse.boolean("CALLBACK_DELIVERY", true),
    concurrency: parse.integer("CALLBACK_CONCURRENCY", 800, 1, 10_000),
    timeoutMs,
    leaseMs: parse.integer("CALLBACK_LEASE_MS", 60_000, 1_000),
    pollMs: parse.integer("CALLBACK_POLL_MS", 200, 10, 60_000),
    allowHosts: parse.list("CALLBACK_ALLOW_HOSTS").map((host) => host.toLowerCase()),
    dnsServers: readDnsServers(parse),
    // A lookup is part of the attempt: by default it may take a third of it, at most 5 s.
    dnsTimeoutMs: parse.integer("CALLBACK_DNS_TIMEOUT_MS", Math.min(5_000, Math.floor(timeoutMs / 3)), 100, 60_000),
    maxAttempts: parse.integer("CALLBACK_MAX_ATTEMPTS", 12, 1, 100),
    retryScale: parse.decimal("CALLBACK_RETRY_SCALE", 1, 0.0001, 1),
    disableAfterHours: parse.integer("WEBHOOK_DISABLE_AFTER_HOURS", 120, 1, 8_760),
    secretsKey: parse.optional("WEBHOOK_SECRETS_KEY"),
  };
}
