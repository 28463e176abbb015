/**
 * What an action does on chain. Names are those the callbacks carry as `action`, which integrators
 * already match on (docs/integrators/callbacks.md). All are accepted from the
 * integrator but `transferred`: a claimed token's move between wallets, found in the registry's logs.
 */
export const CHAIN_ACTION_KINDS = ["newEvent", "updateEvent", "sold", "resold", "scanned", "invalidated", "updateTicket", "claimed", "transferred"] as const;
export type ChainActionKind = (typeof CHAIN_ACTION_KINDS)[number];

/**
 * waiting_broadcast: accepted, queued for the chain writer; waiting_funds: queued, its signer cannot
 * pay for a transaction now (short of funds, or fees above the cap); pending: in a broadcast
 * transaction; confirmed / error: final; no_broadcast_required: nothing of it goes on chain.
 */
export const CHAIN_ACTION_STATUSES = ["waiting_broadcast", "waiting_funds", "pending", "confirmed", "error", "no_broadcast_required"] as const;
export type ChainActionStatus = (typeof CHAIN_ACTION_STATUSES)[number];
