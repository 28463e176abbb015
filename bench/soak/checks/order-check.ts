import type { Pool } from "pg";

import type { CallbackTally } from "../callback-tally";
import { type CheckLine, firstFew, info, verdict } from "./check-line";

interface OnChainRow {
  ticket_ref: string;
  seq: string;
  kind: string;
  signer: string;
  nonce: string;
  batch_index: number;
  block_number: string;
}

interface CallbackRow {
  id: string;
  order_key: string;
  seq: string;
}

/**
 * Per-ticket order, on chain and at the receiver. On chain: a ticket's actions, in the order the service
 * accepted them (chain_actions.seq), sit in the chain in that order — by block, and within a block by
 * nonce and place in the batch when one signer sent both (an event's actions share a signer); two
 * signers in one block cannot be ordered from the ledger and are counted apart. At the receiver: each
 * ticket's (or event's) callbacks, in the order of their actions, first arrived in that order.
 */
export async function checkOrder(
  db: Pool,
  tally: CallbackTally,
  /** A fault run's restores: a delivery between a dump and its restore came from the ledger the restore replaced. */
  restores: readonly { dumpStartedAt: number; restoredAt: number }[] = [],
): Promise<CheckLine[]> {
  const onChain = (
    await db.query<OnChainRow>(`
      SELECT a.ticket_ref, a.seq::text, a.kind, t.signer, t.nonce::text, a.batch_index, t.block_number::text
        FROM chain_actions a
        JOIN chain_transactions t ON t.signer = a.tx_signer AND t.nonce = a.tx_nonce AND t.status = 'confirmed'
       WHERE a.ticket_ref IS NOT NULL AND a.batch_index IS NOT NULL
       ORDER BY a.ticket_ref, a.seq`)
  ).rows;
  const outOfOrder: string[] = [];
  let pairs = 0;
  let acrossSigners = 0;
  for (let index = 1; index < onChain.length; index++) {
    const [earlier, later] = [onChain[index - 1], onChain[index]];
    if (earlier.ticket_ref !== later.ticket_ref) continue;
    pairs += 1;
    const blocks = BigInt(later.block_number) - BigInt(earlier.block_number);
    if (blocks > 0n) continue;
    if (blocks === 0n && earlier.signer !== later.signer) {
      acrossSigners += 1;
      continue;
    }
    const inOrder =
      blocks === 0n && (BigInt(later.nonce) > BigInt(earlier.nonce) || (later.nonce === earlier.nonce && later.batch_index > earlier.batch_index));
    if (!inOrder)
      outOfOrder.push(
        `ticket ${later.ticket_ref}: ${earlier.kind} (seq ${earlier.seq}, block ${earlier.block_number}, nonce ${earlier.nonce}) then ${later.kind} (seq ${later.seq}, block ${later.block_number}, nonce ${later.nonce})`,
      );
  }

  const callbacks = (
    await db.query<CallbackRow>(`SELECT c.id, c.order_key, a.seq::text FROM callbacks c JOIN chain_actions a ON a.id = c.action_id ORDER BY c.order_key, a.seq`)
  ).rows;
  const lateArrivals: string[] = [];
  let callbackPairs = 0;
  let acrossRestores = 0;
  const replacedDelivery = (at: number) => restores.some((restore) => at >= restore.dumpStartedAt && at <= restore.restoredAt);
  for (let index = 1; index < callbacks.length; index++) {
    const [earlier, later] = [callbacks[index - 1], callbacks[index]];
    if (earlier.order_key !== later.order_key) continue;
    const [first, second] = [tally.byWebhookId.get(earlier.id)?.receivedAt[0], tally.byWebhookId.get(later.id)?.receivedAt[0]];
    if (first === undefined || second === undefined) continue;
    // The replaced ledger delivered the earlier action under another webhook-id (lost with it), so the pair cannot be compared.
    if (replacedDelivery(first) !== replacedDelivery(second)) {
      acrossRestores += 1;
      continue;
    }
    callbackPairs += 1;
    if (second < first) lateArrivals.push(`${later.order_key}: action seq ${later.seq} called back ${first - second} ms before seq ${earlier.seq}`);
  }

  return [
    verdict(
      outOfOrder.length === 0,
      "each ticket's actions applied on chain in the order accepted",
      `${pairs} consecutive pairs on chain; out of order: ${outOfOrder.length}${outOfOrder.length ? ` (${firstFew(outOfOrder)})` : ""}`,
    ),
    ...(acrossSigners ? [info("pairs of a ticket's actions by two signers in one block (order not decidable from the ledger)", String(acrossSigners))] : []),
    ...(acrossRestores
      ? [info("pairs of a ticket's callbacks one of which the restored ledger's predecessor delivered (not comparable)", String(acrossRestores))]
      : []),
    verdict(
      lateArrivals.length === 0,
      "each ticket's (and event's) callbacks first arrived in the order of their actions",
      `${callbackPairs} consecutive pairs; out of order: ${lateArrivals.length}${lateArrivals.length ? ` (${firstFew(lateArrivals)})` : ""}`,
    ),
  ];
}
