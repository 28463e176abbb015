/** What an accepted action does on chain. Names are those of the spec's callbacks. */
export const CHAIN_ACTION_KINDS = ["newEvent", "updateEvent", "sold", "resold", "scanned", "invalidated", "updateTicket", "claimed"] as const;
export type ChainActionKind = (typeof CHAIN_ACTION_KINDS)[number];

/**
 * waiting_broadcast: accepted, queued for the chain writer; pending: in a broadcast transaction;
 * confirmed / error: final; no_broadcast_required: nothing of it goes on chain.
 */
export const CHAIN_ACTION_STATUSES = ["waiting_broadcast", "pending", "confirmed", "error", "no_broadcast_required"] as const;
export type ChainActionStatus = (typeof CHAIN_ACTION_STATUSES)[number];
