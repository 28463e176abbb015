/**
 * Every metric of the service, in one place: name, meaning, labels and buckets. The Node process
 * metrics of prom-client come on top, under their standard names. Label values are always drawn
 * from small fixed sets (route patterns, action names, error codes, signer addresses): never ids of
 * events, tickets or actions. The one organization label (the gas counter's ticketeerId) is of that
 * kind too: organizations are few, each onboarded by an operator.
 */
export type MetricType = "counter" | "gauge" | "histogram";

export interface MetricDefinition {
  type: MetricType;
  name: string;
  help: string;
  labelNames: readonly string[];
  buckets?: readonly number[];
}

const PREFIX = "ticket_registry_";

function metric(type: MetricType, name: string, help: string, labelNames: readonly string[] = [], buckets?: readonly number[]): MetricDefinition {
  return { type, name: PREFIX + name, help, labelNames, buckets };
}

export const METRICS = {
  // HTTP
  httpDuration: metric(
    "histogram",
    "http_request_duration_seconds",
    "Time from a request's arrival to the end of its answer, by method, route pattern and status class (2xx, 4xx, 5xx, or aborted)",
    ["method", "route", "status_class"],
    [0.005, 0.01, 0.025, 0.03, 0.05, 0.1, 0.25, 0.3, 0.5, 1, 2.5, 5, 10],
  ),

  // Acceptance
  actions: metric(
    "counter",
    "actions_total",
    "Actions of requests, by kind (the stream action or the endpoint) and outcome (accepted, or refused with its error code)",
    ["kind", "outcome", "code"],
  ),

  // Backlog, read at scrape time
  ledgerActions: metric(
    "gauge",
    "ledger_actions",
    "Ledger actions not yet final: waiting_broadcast (queued for the chain), waiting_funds (queued, their signer cannot pay now) and pending (in a sent transaction)",
    ["status"],
  ),
  ledgerOldestWaiting: metric("gauge", "ledger_oldest_waiting_seconds", "Age of the oldest action waiting for a transaction (0 when none waits)"),
  outboxCallbacks: metric("gauge", "outbox_callbacks", "Callbacks not yet delivered or given up: due now, or scheduled for a later retry", ["state"]),
  queueJobs: metric("gauge", "queue_jobs", "Jobs of each Bull queue, by state", ["queue", "state"]),

  // Chain writer
  batchActions: metric(
    "histogram",
    "batch_actions",
    "Actions per finalized transaction, by its receipt status (confirmed or reverted)",
    ["status"],
    [1, 2, 5, 10, 25, 50, 100, 250, 500, 1000, 1500, 2000, 3000],
  ),
  transactionGas: metric(
    "histogram",
    "transaction_gas_used",
    "Gas used by each finalized transaction (confirmed or reverted)",
    [],
    [50_000, 100_000, 250_000, 500_000, 1_000_000, 2_500_000, 5_000_000, 10_000_000, 15_000_000, 20_000_000, 30_000_000],
  ),
  gasPerAction: metric(
    "histogram",
    "transaction_gas_per_action",
    "Gas used by each confirmed transaction divided by the actions it carried (one observation per transaction)",
    [],
    [1_000, 2_000, 4_000, 8_000, 10_000, 15_000, 25_000, 55_000, 100_000, 150_000, 250_000],
  ),
  confirmationSeconds: metric(
    "histogram",
    "action_confirmation_seconds",
    "Time from an action's acceptance to its final status on chain (confirmed, or error when the registry refused the item)",
    ["status"],
    [0.5, 1, 2, 5, 10, 20, 30, 60, 120, 300, 600, 1800, 3600],
  ),
  organizationGas: metric(
    "counter",
    "organization_gas_total",
    "Gas of finalized transactions (confirmed or reverted) attributed to each organization, by its ticketeerId: each receipt's gasUsed split among the items it carried by their planned gas, as the usage statement counts it",
    ["organization"],
  ),
  replacements: metric("counter", "transaction_replacements_total", "Transactions replaced at the same nonce with higher fees because they stayed unmined"),

  // JSON-RPC endpoints (labelled by their index in CHAIN_RPC_URLS, never by URL) and fees
  chainRpcUp: metric("gauge", "chain_rpc_up", "Whether each JSON-RPC endpoint answered its latest request (1) or failed it (0)", ["endpoint"]),
  chainRpcFailures: metric(
    "counter",
    "chain_rpc_failures_total",
    "JSON-RPC requests an endpoint failed and that went to the next one, by reason: unreachable, timeout, rate_limited (429) or server_error (5xx)",
    ["endpoint", "reason"],
  ),
  ledgerRegistryMismatch: metric(
    "gauge",
    "chain_ledger_registry_mismatch",
    "1 while the writer writes nothing because the configured registry is not the ledger's (chain id, REGISTRY_ADDRESS or REGISTRY_FROM_BLOCK differ from what the ledger first wrote to), or a fresh ledger's first event index is already registered there; else 0",
  ),
  feesOverCap: metric(
    "gauge",
    "chain_fees_over_cap",
    "1 while the fees a transaction needs now (base fee plus tip) exceed MAX_FEE_PER_GAS_GWEI and the writer holds its batches, else 0",
  ),
  broadcastRefusals: metric(
    "counter",
    "chain_broadcast_refusals_total",
    "Raw transactions a node refused, by signer and by the class of its answer (oversized data, already known, nonce too low, txpool is full, ... or other)",
    ["signer", "reason"],
  ),
  signerStuck: metric(
    "gauge",
    "chain_signer_stuck",
    "1 while a signer makes no progress: its oldest in-flight nonce unmined for SIGNER_STUCK_AFTER_MS, its last 3 broadcasts refused, or waiting for funds; else 0",
    ["signer"],
  ),
  signerStopped: metric(
    "gauge",
    "chain_signer_stopped",
    "1 while a signer signs nothing because the chain took its nonces with transactions the ledger does not know (its key used elsewhere, a restored ledger), until `signer reconcile`; else 0",
    ["signer"],
  ),
  signerWaitingFunds: metric(
    "gauge",
    "chain_signer_waiting_funds",
    "1 while a signer's actions wait as waiting_funds: its balance does not cover its next transaction, or fees are above MAX_FEE_PER_GAS_GWEI; else 0",
    ["signer"],
  ),
  feesNeeded: metric("gauge", "chain_fees_needed_wei", "The maxFeePerGas a transaction needs at the latest check: the latest base fee plus the tip, in wei"),

  // Transfers of claimed tokens, followed by the worker in the registry's Transfer logs
  transfersRecorded: metric(
    "counter",
    "chain_transfers_recorded_total",
    "Moves of claimed tokens between wallets recorded as transferred actions (each called back once)",
  ),
  transferFollowerBehind: metric(
    "gauge",
    "chain_transfer_follower_behind_blocks",
    "Confirmed blocks the transfer follower has not read yet, at its latest pass (0 when it is caught up)",
  ),

  // Callbacks
  callbackAttempts: metric(
    "counter",
    "callback_attempts_total",
    "Callback delivery attempts by outcome: success (2xx), http_error (any other status) or no_answer (timeout, refused connection, refused address)",
    ["outcome"],
  ),
  callbackAttemptDuration: metric(
    "histogram",
    "callback_attempt_duration_seconds",
    "Duration of each callback delivery attempt, by outcome",
    ["outcome"],
    [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 15],
  ),
  callbacksFailed: metric("counter", "callbacks_failed_total", "Callbacks given up: gone (the receiver answered 410) or exhausted (every attempt failed)", [
    "reason",
  ]),
  callbackReceiversDisabled: metric(
    "counter",
    "callback_receivers_disabled_total",
    "Callback receivers disabled for failing every attempt for WEBHOOK_DISABLE_AFTER_HOURS: webhook (an organization's endpoint) or callback_url (an event's)",
    ["receiver"],
  ),
  retentionPruned: metric(
    "counter",
    "retention_pruned_total",
    "Rows retention pruned: callbacks (delivered callbacks past CALLBACK_RETENTION_DAYS, deleted), callback_attempts (their attempt log rows), raw_transactions (final transactions' signed bytes past RAW_TX_RETENTION_HOURS)",
    ["kind"],
  ),
  callbackDelivery: metric(
    "histogram",
    "callback_delivery_seconds",
    "Time from a callback's creation (its action became final) to its successful delivery",
    [],
    [0.1, 0.5, 1, 2, 5, 10, 30, 60, 300, 900, 3600, 14_400, 86_400],
  ),

  // Signers, set by the worker's funds monitor
  signerBalance: metric("gauge", "signer_balance_wei", "Balance of each signer on chain, in wei", ["signer"]),
  signerNonce: metric(
    "gauge",
    "signer_nonce",
    "Nonces of each signer: chain_latest (mined), chain_pending (mined or in the node's pool) and ledger_next (the next one the writer signs)",
    ["signer", "source"],
  ),
  signerFundsNeeded: metric(
    "gauge",
    "signer_funds_needed_wei",
    "What the next hour of batches needs at current fees: the gas the signer used in the last hour (at least one full batch) times the current maxFeePerGas",
    ["signer"],
  ),
} as const satisfies Record<string, MetricDefinition>;

export type MetricKey = keyof typeof METRICS;
