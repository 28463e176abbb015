/**
 * What each variable of config-schema.ts is for, in the words the operators' reference shows
 * (docs/operators/configuration.md and .env.example, both written from here and from the schema by
 * `npm run docs:config`). The schema gives every name, type, bound and default; this file adds the
 * meaning, and the default in words where the schema's depends on something else. A test fails when
 * a variable the schema reads has no description here, or a description names a variable nobody reads.
 *
 * Meanings are Markdown; links are relative to docs/operators/.
 */
export interface VariableDescription {
  /** What it does. */
  meaning: string;
  /** The default in words, where the schema's depends on the mode, the role or another variable. */
  default?: string;
  /** What it takes in words, where the parser's type says too little. */
  accepts?: string;
}

export interface ConfigSection {
  title: string;
  /** Read by the service (config-schema.ts), or by `npm start` only (scripts/start.ts). */
  readBy: "service" | "npm start";
  /** Set by `npm start` and the tests, never by an operator: listed in the reference, left out of .env.example. */
  internal?: boolean;
  variables: Record<string, VariableDescription>;
}

export const CONFIG_SECTIONS: readonly ConfigSection[] = [
  {
    title: "Process",
    readBy: "service",
    variables: {
      PORT: { meaning: "HTTP port: the API with `APP_ROLE` `api` or `all`; the operations endpoints (health, metrics, queue dashboard) with `worker`." },
      HOST: {
        meaning:
          "The address the service listens on, its API port and its operations port alike; the start line logs it. `0.0.0.0` (or `::`) listens on every interface: " +
          "the container files set it, where the container's network is the boundary.",
        accepts: "an IP address",
      },
      OPS_PORT: {
        meaning:
          "With `APP_ROLE` `api` or `all`: the port of the operations endpoints (`/metrics`, the queue dashboard at `/admin/queues`, and health), which the API port " +
          "does not serve (404 there). A worker serves them on `PORT`. See [Operations port](operations.md#operations-port).",
        default: "`9464`; `npm start` gives the api `WORKER_PORT` + 1",
      },
      PUBLIC_BASE_URL: {
        meaning:
          "The api's public address (http or https, no query): each token's `external_url` is under it, and the deploy script points the registry's " +
          "`tokenURI` (`{PUBLIC_BASE_URL}/tokens/`) and `contractURI` (`{PUBLIC_BASE_URL}/tokens/collection`) at it. Required in production " +
          "where the API runs (`APP_ROLE` `api` or `all`; the worker serves no tokens). Unset outside production, the address the server answered " +
          "on (the connection's own IP address and port) stands in for it, never the request's `Host` header.",
        default: "none (required in production for `api` and `all`); `npm start` sets `http://localhost:$PORT`",
      },
      APP_ROLE: {
        meaning:
          "`api` (the HTTP API), `worker` (chain writer, receipt watcher, callback delivery; serves only the operations endpoints) or `all` (both in one process).",
      },
      APP_MODE: {
        meaning: "`development`, `production` or `test`. Production refuses the development and test shortcuts and requires what a deployment needs.",
        default: "`production` if `NODE_ENV=production`, else `development`",
      },
      NODE_ENV: { meaning: "Only `production` matters: it makes `production` the default of `APP_MODE`." },
      LOG_LEVEL: { meaning: "`fatal`, `error`, `warn`, `info`, `debug` or `verbose` (pino's `trace`). See [Logs](operations.md#logs)." },
      LOG_FORMAT: {
        meaning:
          "`json` (one JSON object per line), `pretty` (one readable line per entry, for a person) or `auto` (pretty when stdout is a terminal, JSON otherwise). " +
          "`npm start` passes its own terminal's choice to the api and worker it starts. See [Logs](operations.md#logs).",
        default: "`auto` in development, `json` in production and test",
      },
      SHUTDOWN_GRACE_MS: { meaning: "On SIGTERM, how long readiness answers 503 before the server stops taking requests." },
    },
  },
  {
    title: "HTTPS and the operations views",
    readBy: "service",
    variables: {
      TLS_CERT_FILE: {
        meaning:
          "PEM certificate (with its chain): the service serves HTTPS itself on `PORT`, and reads it and the key again when they change " +
          "(see [HTTPS](operations.md#https)). Set both `TLS_CERT_FILE` and `TLS_KEY_FILE` or neither.",
      },
      TLS_KEY_FILE: { meaning: "PEM key of `TLS_CERT_FILE`." },
      TRUST_PROXY: {
        meaning:
          "The TLS-terminating proxies whose `X-Forwarded-Proto` and `X-Forwarded-For` are believed (Express's `trust proxy`); anybody else's are ignored. " +
          "The forwarded address is the client's: what API keys bound to IP ranges (`key create --allow-ip`) and the per-IP limits go by.",
        accepts: "comma-separated addresses, CIDR ranges, `loopback`, `linklocal`, `uniquelocal`",
      },
      REQUIRE_HTTPS: {
        meaning:
          "Refuse a request that did not arrive over HTTPS (TLS to the service, or `X-Forwarded-Proto: https` from a `TRUST_PROXY` address) with " +
          "`400 https_required`, health probes excepted; HTTPS answers carry HSTS.",
        default: "`true` in production (every role), else `false`",
      },
      ADMIN_USERNAME: {
        meaning:
          "User name of the basic-auth credential of the operations views: the queue dashboard at `/admin/queues`, `/metrics`, and readiness in full (signers by address).",
      },
      ADMIN_PASSWORD: {
        meaning:
          "Password of that credential (at least 16 characters; a shorter one is refused). Without it nobody gets in (401), and readiness only counts the signers.",
      },
      ADMIN_QUEUE_WRITE: {
        meaning:
          "The queue dashboard may change the queues (pause, resume, retry, add, clean, remove jobs). Unset, it is read-only: it shows the queues and refuses every change. " +
          "Either way a change needs a JSON body (or none) and an `Origin` header naming the address the request came to.",
      },
      ADMIN_MAX_FAILED_SIGN_INS: {
        meaning:
          "Wrong admin credentials (basic auth on the operations endpoints or readiness) one client IP (an IPv6 client by its /64) may send per window; past it every attempt from it, " +
          "right or wrong, answers `429` with `Retry-After` until the window ends. Counted in Redis, shared by every instance.",
      },
      ADMIN_FAILED_SIGN_IN_WINDOW_SECONDS: { meaning: "The window of `ADMIN_MAX_FAILED_SIGN_INS`, in seconds." },
    },
  },
  {
    title: "Database and Redis",
    readBy: "service",
    variables: {
      DATABASE_URL: { meaning: "PostgreSQL: the ledger, the outbox, the organizations, the signers' nonces." },
      DATABASE_CREATE_IF_MISSING: { meaning: "Create the database at start if it does not exist." },
      MIGRATE_AT_BOOT: { meaning: "Run pending migrations at start, under a PostgreSQL advisory lock (so any number of instances may start at once)." },
      REDIS_URL: { meaning: "Redis: queue messages and rate-limit counters." },
      REDIS_KEY_PREFIX: { meaning: "Prefix of every Redis key, so that environments can share a Redis." },
    },
  },
  {
    title: "Requests and rate limits",
    readBy: "service",
    variables: {
      STREAM_BODY_LIMIT_BYTES: {
        meaning:
          "Body cap of `POST /stream`: 5000 `newEvent` actions with every string at 255 characters fit; of `soldTicket` actions with every metadata field at its limit, about 1,000.",
      },
      TICKET_BODY_LIMIT_BYTES: {
        meaning: "Body cap of the other endpoints: 100 `POST /api/v1/sold` items with every field, metadata included, at its limit fit (1.6 MB).",
      },
      HTTP_HEADERS_TIMEOUT_MS: {
        meaning:
          "A request's headers must arrive within this; a slower client gets `408` and its connection is closed (may not be longer than `HTTP_REQUEST_TIMEOUT_MS`).",
      },
      HTTP_REQUEST_TIMEOUT_MS: {
        meaning:
          "The whole request, body included, must arrive within this; a slower client gets `408` and its connection is closed. The time to answer is not limited.",
      },
      RATE_LIMIT_REQUESTS: {
        meaning:
          "Requests per API key per window, counted in Redis across instances; status reads (`GET /api/v1/actions/…`) count on `STATUS_RATE_LIMIT_REQUESTS` instead. The default admits 400 requests/s, over twice the best on-sale the benchmark has measured (10 clients of 100 tickets a request: up to 145 requests/s, 14,500 tickets/s, on 2 cores).",
      },
      RATE_LIMIT_WINDOW_SECONDS: { meaning: "The window of `RATE_LIMIT_REQUESTS` and `RATE_LIMIT_ACTIONS`." },
      RATE_LIMIT_ACTIONS: {
        meaning:
          "Actions per API key per window (`RATE_LIMIT_WINDOW_SECONDS`), beside the requests: the items of the accepting endpoints' bodies (`POST /stream`, `/api/v1/sold`, `resold`, `scanned`, `checkedin`, `invalidated`; `POST /api/v1/events` counts one), so that a `/stream` of 5000 actions costs 5000, not one. A request whose actions do not fit in what is left of the window is refused whole, `429 rate_limited` with `Retry-After`, and takes nothing of the budget. The default admits 35,000 actions/s, twice the most the benchmarks have measured on one key (16,832 tickets/s with two api processes in `bench:scale`, 14,500 in the on-sale).",
      },
      ORG_MAX_QUEUED_ACTIONS: {
        meaning:
          "Actions of one organization accepted and not yet on chain (waiting for the writer, or sent and not yet final) at most, counted across every API instance: an item beyond it is refused on its own, `queue_full`, with `Retry-After` on the answer (`429` on `POST /api/v1/events`); actions with nothing for the chain still pass. Another organization's backlog never delays yours either way: the writer takes organizations in turn. The default is twice the most the benchmarks queue: the on-sale (`bench:onsale`, 10 clients of 100 tickets a request on one key for 33 s against `npm start`'s chain) queued up to 200,000 at 7,000 tickets/s, which is up to 430,000 at the 14,500 tickets/s it reaches at best; no other benchmark queues more (`bench:scale`'s api part about 330,000).",
      },
      STATUS_RATE_LIMIT_REQUESTS: {
        meaning:
          "Status reads (`GET /api/v1/actions/{promise}` and the live status stream `GET /api/v1/actions/events`) per API key per window, counted on their own so that polling never takes the room of writes.",
      },
      STATUS_RATE_LIMIT_WINDOW_SECONDS: { meaning: "The window of `STATUS_RATE_LIMIT_REQUESTS`." },
      USAGE_MAX_RANGE_DAYS: {
        meaning:
          "The longest range, in days, one usage statement covers (`GET /api/v1/usage` and `npm run cli -- usage report`): a longer `from`–`to` is refused, " +
          "`400 invalid_field` naming `to`. Its cost grows with the range, never with the ledger's size (see [Usage statements](operations.md#usage-statements)). The default covers a calendar year.",
      },
      VERIFY_RATE_LIMIT_REQUESTS: {
        meaning:
          "Pages of the public ticket pages (`GET /verify/{ticketId}`, `/verify/tokens/{tokenId}`) per client IP per window: each page costs a dozen JSON-RPC calls. " +
          "An IPv6 client counts by its /64, an IPv4-mapped IPv6 address as its IPv4 address.",
      },
      VERIFY_RATE_LIMIT_WINDOW_SECONDS: { meaning: "The window of `VERIFY_RATE_LIMIT_REQUESTS`." },
      METADATA_RATE_LIMIT_REQUESTS: {
        meaning: "Token metadata requests (`GET /tokens/…`) per client IP per window; an IPv6 client counts by its /64, as for `VERIFY_RATE_LIMIT_REQUESTS`.",
      },
      METADATA_RATE_LIMIT_WINDOW_SECONDS: { meaning: "The window of `METADATA_RATE_LIMIT_REQUESTS`." },
      IDEMPOTENCY_MAX_ANSWER_BYTES: {
        meaning:
          "The largest answer an `Idempotency-Key` keeps for replay (bytes of its JSON). The request is answered in full all the same; a larger answer is " +
          "not kept, and a retry with the key gets `409 idempotency_answer_not_kept`, nothing applied again (or, if the request applied nothing, runs " +
          "again). The default keeps a 5,000-action `/stream` answered in full with UUID ids (about 800 KB). " +
          "See [idempotency](../integrators/idempotency.md#limits).",
      },
      IDEMPOTENCY_MAX_KEYS_PER_ORGANIZATION: {
        meaning:
          "The most `Idempotency-Key`s an organization holds at once (each for 24 hours): a request with a new key past it is refused with " +
          "`429 idempotency_keys_exhausted` and `Retry-After` (until its oldest key expires), nothing applied. Counted about every 10 s per instance, " +
          "so it may be passed by the keyed requests of those seconds. The default allows a keyed request every 0.9 s around the clock; at most " +
          "this many times `IDEMPOTENCY_MAX_ANSWER_BYTES` is kept per organization.",
      },
    },
  },
  {
    title: "Token metadata",
    readBy: "service",
    variables: {
      METADATA_HEAD_MAX_AGE_MS: {
        meaning: "How old the chain head the token metadata is read at may get while requests come (a change in the ledger makes it look sooner).",
      },
      METADATA_CACHE_WINDOWS: {
        meaning: "Windows of 64 tokens the api keeps in memory for the token metadata (and as many events' details), the least recently read forgotten first.",
      },
      METADATA_CACHE_MISSES: {
        meaning:
          "Windows of 64 tokens in which no token was minted, and events not registered, that the api keeps in memory apart from `METADATA_CACHE_WINDOWS`: " +
          "asking for tokens that do not exist pushes out only other such misses, never a real token.",
      },
      COLLECTION_DESCRIPTION: { meaning: "`description` of the collection metadata (`GET /tokens/collection`), beside the registry's name and symbol." },
      COLLECTION_IMAGE_URL: { meaning: "`image` of the collection metadata; left out when unset." },
      COLLECTION_EXTERNAL_LINK: { meaning: "`external_link` of the collection metadata.", default: "`PUBLIC_BASE_URL`" },
    },
  },
  {
    title: "Queue",
    readBy: "service",
    variables: {
      SWEEP_INTERVAL_MS: { meaning: "How often the worker looks for waiting actions whose queue message was lost, and queues them again." },
      SWEEP_MIN_AGE_MS: { meaning: "How old such an action must be before the sweep queues it again." },
      QUEUE_KEEP_FINISHED_JOBS: {
        meaning:
          "The most recent completed jobs, and the most recent failed ones, every queue keeps in Redis (shown on the queue dashboard); older ones are " +
          "removed, so that Redis does not grow with the traffic.",
      },
    },
  },
  {
    title: "Chain",
    readBy: "service",
    variables: {
      CHAIN_RPC_URL: {
        meaning:
          "JSON-RPC URL of the chain; required in production (or `CHAIN_RPC_URLS`). Still accepted as the single endpoint: set it or `CHAIN_RPC_URLS`, not both.",
        default: "none; `npm start` runs a local chain and sets it",
      },
      CHAIN_RPC_URLS: {
        meaning:
          "Several JSON-RPC URLs of the same chain, in order of preference: requests go to the first healthy one and fail over on connection errors, " +
          "timeouts, HTTP 5xx and 429 (see [RPC endpoints and fees](chain-operations.md#rpc-endpoints-and-fees)). Credentials in a URL " +
          "(`https://user:pass@host/…`) are sent as an `Authorization: Basic` header.",
      },
      CHAIN_RPC_HEADERS: {
        meaning: 'Extra headers for every JSON-RPC request, such as `{"x-api-key":"…"}` (checked at start; values are never logged).',
      },
      REGISTRY_ADDRESS: { meaning: "The `TicketRegistry` the service writes to; required with `CHAIN_RPC_URL` or `CHAIN_RPC_URLS`." },
      REGISTRY_FROM_BLOCK: {
        meaning:
          "The registry's deployment block: every reading of its logs starts there (ticket pages, token metadata, the transfer follower), and the " +
          "ledger is bound to it (see [The ledger's registry](chain-operations.md#the-ledgers-registry)). Set it on a public chain: many providers " +
          "refuse `eth_getLogs` over the whole chain.",
        default: "`VERIFY_FROM_BLOCK`, else `0`",
      },
      VERIFY_FROM_BLOCK: { meaning: "The former name of `REGISTRY_FROM_BLOCK`, still read when that is unset." },
      CONFIRMATIONS: {
        meaning:
          "Blocks on top of (and including) the one that mined a batch before its actions count as confirmed; or `finalized`: once the node's " +
          "`finalized` block has reached the batch's block (proof-of-stake finality; the node must serve the `finalized` tag).",
        accepts: "an integer from 1 to 1000, or `finalized`",
      },
      TRANSFER_POLL_MS: { meaning: "How often the worker follows the registry's `Transfer` logs of claimed tokens." },
      TRANSFER_MAX_BLOCK_RANGE: { meaning: "Blocks per log query of the transfer follower (halved while the node refuses a range as too large)." },
    },
  },
  {
    title: "Fees",
    readBy: "service",
    variables: {
      MIN_PRIORITY_FEE_GWEI: {
        meaning: "Floor of the priority fee (tip) of every transaction, in gwei; Polygon PoS nodes refuse tips under `25`.",
        default: "`0`",
      },
      MAX_FEE_PER_GAS_GWEI: {
        meaning:
          "Cap on `maxFeePerGas`, in gwei: while the base fee plus the tip exceeds it the writer sends nothing (readiness `degraded`, " +
          "`chain_fees_over_cap` 1) and resumes by itself when fees drop.",
        default: "none, no cap",
      },
      FEE_BUMP_PERCENT: {
        meaning: "How much both fees rise when a transaction is replaced (stuck, or refused as underpriced); the node refuses a replacement under 10%.",
      },
    },
  },
  {
    title: "Signers and funds",
    readBy: "service",
    variables: {
      SIGNER_PRIVATE_KEYS: {
        meaning:
          "Operator keys of the chain writer; required where it runs (`APP_ROLE` `worker` or `all`) unless a remote signer holds them. Keep them in " +
          "the environment or a secrets store, never in a file in the repository.",
        accepts: "comma-separated 0x-prefixed 32-byte hex keys",
      },
      SIGNER_REMOTE_URL: {
        meaning:
          "A remote signer (Web3Signer, geth in front of Clef, any server of `eth_signTransaction`) that signs the writer's transactions instead of " +
          "`SIGNER_PRIVATE_KEYS` (set one of the two where the writer runs, never both).",
      },
      SIGNER_ADDRESSES: {
        meaning: "With `SIGNER_REMOTE_URL`: the operator addresses the remote signer signs for, in the order `SIGNER_PRIVATE_KEYS` would list their keys.",
        accepts: "comma-separated 0x-prefixed addresses",
      },
      SIGNER_FUNDS_CHECK_MS: {
        meaning: "How often the worker reads each signer's balance and nonces and compares the balance with what the next hour of batches needs.",
      },
      SIGNER_MIN_BALANCE: { meaning: "A balance (in the native coin, e.g. `0.5`) below which a signer counts as short even when the next hour needs less." },
    },
  },
  {
    title: "Chain writer",
    readBy: "service",
    variables: {
      BATCH_MAX_WAIT_MS: { meaning: "Longest an action waits for its batch to fill." },
      TX_GAS_CAP: { meaning: "Gas limit of one batch transaction at most (keep it at or below 16,777,216, the per-transaction cap of EIP-7825)." },
      TX_MAX_BYTES: {
        meaning: "Size of one signed batch transaction at most (geth and bor refuse one over 128 KiB as `oversized data`; the default keeps 4 KiB of margin).",
      },
      BLOCK_GAS_SHARE_PERCENT: { meaning: "Share of the block's gas limit one batch may take." },
      MAX_IN_FLIGHT_PER_SIGNER: {
        meaning:
          "Transactions a signer has signed or sent and not yet seen mined: the writer signs no further batch while this many wait for a block. " +
          "A mined transaction holds no slot while it waits for its `CONFIRMATIONS` (one a reorg takes back holds one again). " +
          "Keep it below the node's limit of pending transactions per sender (commonly 16 to 64).",
      },
      STUCK_TX_AFTER_MS: { meaning: "After this long unmined, a transaction is replaced with both fees raised by `FEE_BUMP_PERCENT`." },
      SIGNER_STUCK_AFTER_MS: {
        meaning:
          "A signer whose oldest in-flight nonce stays unmined this long counts as stuck: readiness `degraded` (`chainWriter`), `chain_signer_stuck` 1 " +
          "(see [Node refusals and stuck signers](chain-operations.md#node-refusals-and-stuck-signers)). Observation only: it changes nothing the writer does.",
      },
      RECEIPT_POLL_MS: { meaning: "How often receipts are checked." },
      MAX_REVERTED_ATTEMPTS: { meaning: "A batch that reverts puts its actions back in line; after this many reverts an action ends `error`." },
    },
  },
  {
    title: "Callbacks",
    readBy: "service",
    variables: {
      CALLBACK_DELIVERY: { meaning: "Whether this worker delivers callbacks (`false` on workers that should only write to the chain)." },
      CALLBACK_CONCURRENCY: {
        meaning:
          "Callbacks in flight per worker; one receiver gets at most half of them, sent over at most 64 connections per receiver (the rest wait for one of those).",
      },
      CALLBACK_TIMEOUT_MS: {
        meaning:
          "A receiver's time to answer, its name's lookup included; the time an attempt waits for one of the worker's 64 connections to its receiver does not count.",
      },
      CALLBACK_LEASE_MS: {
        meaning:
          "After this, a callback claimed by a worker that died is claimed again; must be longer than `CALLBACK_TIMEOUT_MS`. An attempt still waiting for a connection when the lease has only the timeout and a margin left is given up unsent (a failed attempt, retried).",
      },
      CALLBACK_POLL_MS: { meaning: "How often an idle worker looks for due callbacks." },
      CALLBACK_MAX_ATTEMPTS: { meaning: "Attempts before a callback is `failed`." },
      CALLBACK_ALLOW_HOSTS: {
        meaning: "Development and tests only: host names allowed to resolve to private addresses (refused in production).",
        accepts: "comma-separated host names",
      },
      CALLBACK_DNS_SERVERS: {
        meaning: "The DNS servers callback hosts are resolved with (by default the system's, from `/etc/resolv.conf`).",
        accepts: "comma-separated IP addresses, each with an optional port (`10.0.0.53,[fd00::53]:5353`)",
      },
      CALLBACK_DNS_TIMEOUT_MS: {
        meaning:
          "The most one lookup of a callback host may take (by default a third of `CALLBACK_TIMEOUT_MS`, at most 5000); shorter than `CALLBACK_TIMEOUT_MS`.",
      },
      CALLBACK_RETRY_SCALE: { meaning: "Tests only: shrinks the retry schedule's delays (refused in production)." },
      WEBHOOK_DISABLE_AFTER_HOURS: {
        meaning:
          "A receiver (an organization's webhook endpoint, or an event's `callbackUrl`) whose every attempt failed for this many hours is disabled: " +
          "its callbacks are kept, not attempted, until the integrator enables it again; the organization's other endpoints get an `endpoint_disabled` " +
          "callback, and `callback_receivers_disabled_total` counts it. See [Webhook endpoints](../integrators/callbacks.md#webhook-endpoints).",
      },
      WEBHOOK_SECRETS_KEY: {
        meaning:
          "AES-256-GCM key (base64 of 32 bytes: `openssl rand -base64 32`) that encrypts the webhook signing secrets in the database, each bound to " +
          "its organization; required in production. See [Keys and secrets](organizations-and-secrets.md#keys-and-secrets).",
      },
    },
  },
  {
    title: "Retention",
    readBy: "service",
    variables: {
      CALLBACK_RETENTION_DAYS: {
        meaning:
          "Days a delivered callback is kept after its (last) delivery: within them it is listed, read in full and redelivered. After them it is " +
          "deleted with its attempt log; what it reported stays in its action (`GET /api/v1/actions/{promise}`: status, txHash, block, error). " +
          "Failed and pending callbacks are never deleted. See [Retention](operations.md#retention).",
      },
      RAW_TX_RETENTION_HOURS: {
        meaning:
          "Hours a final transaction (confirmed, reverted or replaced) keeps its signed bytes: they are sent again only if a node loses blocks the " +
          "ledger had confirmed, which these hours cover. Its hash, nonce, status, block and gas are kept forever. See [Retention](operations.md#retention).",
      },
    },
  },
  {
    title: "Development",
    readBy: "service",
    variables: {
      DEV_TICKETEER_ID: {
        meaning: "Development only: seed a playground organization with this id and `DEV_API_KEY` (both or neither); refused in production.",
      },
      DEV_API_KEY: { meaning: "Development only: the playground organization's API key (at least 24 characters); refused in production." },
      DEV_ORGANIZATION_NAME: { meaning: "Name of the playground organization." },
      DEV_WEBHOOK_SECRET: {
        meaning: "Development only: the playground's webhook signing secret (`whsec_` and base64 of at least 16 bytes); refused in production.",
      },
    },
  },
  {
    title: "Set by npm start and the tests",
    readBy: "service",
    internal: true,
    variables: {
      CHAIN_EMBEDDED: {
        meaning: "Set by `npm start` when it runs the playground chain: the chain's JSON-RPC URL is then shown in `GET /api/v1/chain` and logged at start.",
      },
      CHAIN_WRITER_CRASH_AT: {
        meaning:
          "Test hook: the worker kills itself (SIGKILL) at that point of sending a batch, `after-persist` or `after-broadcast`, to prove that a crash loses nothing. Refused in production.",
      },
    },
  },
  {
    title: "npm start",
    readBy: "npm start",
    variables: {
      WORKER_PORT: {
        meaning: "The worker process's port (health, metrics, queue dashboard); `npm start` sets `PORT` of that process to it.",
        default: "`PORT` + 1",
      },
      EMBEDDED_CHAIN_PORT: { meaning: "Port of the playground chain (Anvil).", default: "`8545`" },
      PLAYGROUND_DATA_DIR: {
        meaning: "Where `npm start` keeps the playground chain's state and its registry record (`npm run start:fresh` removes both).",
        default: "`.data/playground`",
      },
    },
  },
];
