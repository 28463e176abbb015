import type { NodeRefusal } from "../broadcast/node-refusal";

/**
 * What the writer does about a refused broadcast:
 * - `accepted`: the node has it (`already known`); nothing to do.
 * - `resync_nonce`: the nonce is used (`nonce too low`); once the chain shows it taken by a
 *   transaction that is not ours, its actions wait again and the next nonce follows the chain.
 * - `bump`: priced too low for the node (`transaction underpriced`, `replacement transaction
 *   underpriced`, `max fee per gas less than block base fee`): re-signed at once with higher fees.
 * - `replan`: too large for the node (`oversized data`, `exceeds block gas limit`) or given too
 *   little gas for its bytes (`intrinsic gas too low`): the same nonce carries a smaller batch, the
 *   rest waits again, and later batches of the signer are planned within what the node took.
 * - `wait_for_funds`: the signer cannot pay (`insufficient funds for gas * price + value`): its
 *   actions wait as waiting_funds until its balance covers the next transaction.
 * - `back_off`: the node is busy or said something else (`txpool is full`, unreachable): the same
 *   bytes again, later and later (per signer: its nonces go again together, in order).
 */
export type RefusalResponse = "accepted" | "resync_nonce" | "bump" | "replan" | "wait_for_funds" | "back_off";

const RESPONSES: Record<NodeRefusal, RefusalResponse> = {
  "already known": "accepted",
  "nonce too low": "resync_nonce",
  "transaction underpriced": "bump",
  "replacement transaction underpriced": "bump",
  "max fee per gas less than block base fee": "bump",
  "oversized data": "replan",
  "exceeds block gas limit": "replan",
  "intrinsic gas too low": "replan",
  "insufficient funds for gas * price + value": "wait_for_funds",
  "txpool is full": "back_off",
  other: "back_off",
};

/** The response to a refusal; null (no JSON-RPC answer: unreachable, timed out) backs off. */
export function responseTo(refusal: NodeRefusal | null): RefusalResponse {
  return refusal === null ? "back_off" : RESPONSES[refusal];
}
