export type AppRole = "all" | "api" | "worker";
export type AppMode = "development" | "production" | "test";
/** LOG_FORMAT: `auto` is pretty when stdout is a terminal (a person reads it), JSON otherwise (a collector does). */
export type LogFormatSetting = "auto" | "json" | "pretty";

export interface AppConfig {
  app: {
    mode: AppMode;
    role: AppRole;
    port: number;
    /** The address both servers bind (HOST): the API's and the operations port. */
    host: string;
    /**
     * OPS_PORT: where the api and all roles serve the operations endpoints (metrics, the queue
     * dashboard, health), apart from the API. The worker serves nothing else, on PORT.
     */
    opsPort: number;
    logLevel: string;
    logFormat: LogFormatSetting;
    shutdownGraceMs: number;
    /**
     * The service's public address (PUBLIC_BASE_URL), under which wallets read the tokens' metadata:
     * the registry's tokenURI and contractURI point here, and every token's external_url. Null: the
     * address a request came to stands in for it.
     */
    publicBaseUrl: string | null;
  };
  /** Transport security: TLS served directly (certificate and key files, picked up again when they change), or behind a TLS-terminating proxy. */
  http: {
    tlsCertFile: string | null;
    tlsKeyFile: string | null;
    /** Express "trust proxy": the proxies whose X-Forwarded-Proto and X-Forwarded-For are believed (addresses, CIDRs, loopback, uniquelocal…). */
    trustProxy: string[];
    /** Refuse a request that did not arrive over HTTPS (health probes excepted), and send HSTS. */
    requireHttps: boolean;
    /** A connection whose request headers have not all arrived this long after they began is closed (408). */
    headersTimeoutMs: number;
    /** A connection whose whole request (headers and body) has not arrived this long after it began is closed (408). */
    requestTimeoutMs: number;
  };
  database: { url: string; createIfMissing: boolean; migrateAtBoot: boolean };
  redis: { url: string; keyPrefix: string };
  limits: {
    ticketItems: number;
    streamActions: number;
    ticketBodyBytes: number;
    streamBodyBytes: number;
    /** The most levels of arrays and objects a JSON body may nest (the endpoints take 3 at most). */
    jsonDepth: number;
    /** The most actions of one organization accepted and not yet on chain (ORG_MAX_QUEUED_ACTIONS). */
    organizationQueuedActions: number;
  };
  /**
   * Requests per API key per window, status reads (GET /api/v1/actions/…) excepted; and `actions`, the
   * actions those requests carry (the items of the accepting endpoints' bodies) in the same window.
   */
  rateLimit: { points: number; durationSeconds: number; actions: number };
  /**
   * Idempotency-Key: the largest answer kept for replay (a larger one is not kept, and a retry learns
   * so), and the most live keys per organization (a new key past it is refused, 429).
   */
  idempotency: { maxAnswerBytes: number; maxKeysPerOrganization: number };
  /** Status reads per API key per window, a budget of their own so that polling never takes the writes' room. */
  statusReadLimit: { points: number; durationSeconds: number };
  /** The usage statement (GET /api/v1/usage, `usage report`): the longest range one statement covers, in days. */
  usage: { maxRangeDays: number };
  /** The public ticket pages (GET /verify/{ticketId}, /verify/tokens/{tokenId}): requests per client IP per window. */
  verifyPage: { points: number; durationSeconds: number };
  /** The public token metadata (GET /tokens/{tokenId}, /tokens/collection). */
  tokenMetadata: {
    /** Requests per client IP per window: a marketplace crawls, but cannot spend the node's quota. */
    points: number;
    durationSeconds: number;
    /** How old the chain head the metadata is read at may get before a request looks again. */
    headMaxAgeMs: number;
    /** Windows of 64 consecutive tokens kept in memory (and as many events), least recently used out first. */
    cacheWindows: number;
    /** Windows and events in which nothing was found, kept apart so that they never push out real ones. */
    cacheMisses: number;
    /** The collection's metadata (ERC-7572) beside the registry's name and symbol. */
    collection: { description: string; imageUrl: string; externalLink: string | null };
  };
  queue: {
    sweepIntervalMs: number;
    sweepMinAgeMs: number;
    /** QUEUE_KEEP_FINISHED_JOBS: the most recent completed jobs, and the most recent failed ones, each queue keeps in Redis. */
    keepFinishedJobs: number;
  };
  chain: ChainConfig;
  callbacks: {
    deliver: boolean;
    concurrency: number;
    timeoutMs: number;
    leaseMs: number;
    pollMs: number;
    allowHosts: string[];
    /** CALLBACK_DNS_SERVERS: the DNS servers delivery resolves names with (`address` or `address:port`); empty for the system's. */
    dnsServers: string[];
    /** CALLBACK_DNS_TIMEOUT_MS: the most one name lookup may take; shorter than timeoutMs, which it is part of. */
    dnsTimeoutMs: number;
    maxAttempts: number;
    /** Multiplies the retry schedule's delays (not a receiver's Retry-After): tests shrink it; production keeps 1. */
    retryScale: number;
    /** WEBHOOK_DISABLE_AFTER_HOURS: a receiver (webhook endpoint or event callbackUrl) that failed every attempt for this long is disabled. */
    disableAfterHours: number;
    /** AES-256 key (base64 of 32 bytes) that encrypts the webhook signing secrets at rest; required in production. */
    secretsKey: string | null;
  };
  /**
   * How long what is needed only for a while is kept (src/retention): the body and attempt log of a
   * delivered callback, days after its delivery; the signed bytes of a final transaction, hours
   * after it became final.
   */
  retention: { callbackDays: number; rawTransactionHours: number };
  dev: { ticketeerId: string | null; apiKey: string | null; organizationName: string; webhookSecret: string | null };
  /** The queue dashboard's credential; no password, no dashboard. */
  admin: {
    username: string;
    password: string | null;
    /** ADMIN_QUEUE_WRITE: the queue dashboard may pause, retry, add and remove; else it only shows. */
    queueWrite: boolean;
    /** Wrong admin credentials per client IP per window before every attempt from it is refused (429) until the window ends. */
    failedSignIns: { points: number; durationSeconds: number };
  };
}

export interface ChainConfig {
  /** Null: no chain configured; actions wait in the ledger (npm start provides an embedded chain). */
  rpcUrl: string | null;
  /** Every JSON-RPC URL, in order of preference (CHAIN_RPC_URLS, or CHAIN_RPC_URL alone); the first is rpcUrl. */
  rpcUrls: string[];
  /** Extra headers sent with every JSON-RPC request (CHAIN_RPC_HEADERS): a provider's API key, say. */
  rpcHeaders: Record<string, string>;
  registryAddress: string | null;
  /** The registry's deployment block (REGISTRY_FROM_BLOCK): where every reading of its logs starts. */
  fromBlock: number;
  /** How the worker follows the registry's Transfer logs of claimed tokens. */
  transfers: { pollIntervalMs: number; maxBlockRange: number };
  /** Set by the embedded development start: its RPC URL may be shown to integrators. */
  embedded: boolean;
  signerKeys: string[];
  /** A remote signer (Web3Signer, geth in front of Clef: eth_signTransaction) holding the signers' keys instead of SIGNER_PRIVATE_KEYS. */
  signerRemoteUrl: string | null;
  /** The accounts the remote signer signs for, in shard order. */
  signerAddresses: string[];
  /**
   * When a mined batch counts as confirmed: this many blocks deep (counting its own), or "finalized":
   * once its block is at or below the node's `finalized` block (proof-of-stake finality).
   */
  confirmations: number | "finalized";
  writer: {
    maxWaitMs: number;
    txGasCap: number;
    /** The largest signed transaction the writer sends, in bytes. */
    txMaxBytes: number;
    blockGasShare: number;
    maxInFlightPerSigner: number;
    stuckAfterMs: number;
    /** How long a signer's oldest in-flight nonce may stay unmined before readiness reports the signer stuck. */
    signerStuckAfterMs: number;
    feeBumpPercent: number;
    pollIntervalMs: number;
    maxRevertedAttempts: number;
  };
  /** A floor for the priority fee (tip) and a cap on maxFeePerGas, in wei; no cap: null. */
  fees: { minPriorityFeeWei: bigint; maxFeePerGasWei: bigint | null };
  /** The worker's watch over its signers' balances: how often, and a balance no signer should go below. */
  funds: { checkIntervalMs: number; minimumWei: bigint };
  /** Test-only fault injection: the worker kills itself at this point of the write path. */
  crashAt: "after-persist" | "after-broadcast" | null;
}
