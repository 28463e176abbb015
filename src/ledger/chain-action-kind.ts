import { ACTION_KINDS, type ActionKind } from "../common/actions";

/**
 * What an action does on chain: the rows of ACTIONS (src/common/actions.ts). Names are those the
 * callbacks carry as `action`, which integrators already match on (docs/integrators/callbacks.md).
 * The `chain_actions.kind` CHECK constraint lists the same (test/stores/action-kinds.e2e-spec.ts).
 */
export const CHAIN_ACTION_KINDS = ACTION_KINDS;
export type ChainActionKind = ActionKind;

/**
 * waiting_broadcast: accepted, queued for the chain writer; waiting_funds: queued, its signer cannot
 * pay for a transaction now (short of funds, or fees above the cap); pending: in a broadcast
 * transaction; confirmed / error: final; no_broadcast_required: nothing of it goes on chain (an updateEvent of its callbackUrl only);
 * cancelled: withdrawn by the integrator before it was signed (final: nothing of it goes on chain).
 */
export const CHAIN_ACTION_STATUSES = ["waiting_broadcast", "waiting_funds", "pending", "confirmed", "error", "no_broadcast_required", "cancelled"] as const;
export type ChainActionStatus = (typeof CHAIN_ACTION_STATUSES)[number];
