import type { EntityManager } from "typeorm";

import { receiverSql } from "./callback-receiver";

/**
 * Writes one callback per finalized action into the outbox, inside the caller's transaction: the
 * interface's fields (txHash, transactionType, action, eventId, ticketId) plus the promise, the
 * status ("confirmed" or "error") and the chain facts; a transferred action adds the wallets it moved
 * between (from, to). Delivery reads the event's callbackUrl when it sends; the callback keeps that
 * URL's receiver, by which a claim walks the outbox (retargetCallbacks keeps it true).
 */
export async function insertCallbacks(
  manager: EntityManager,
  actionIds: readonly string[],
  chainId: bigint | null,
  registryAddress: string | null,
): Promise<void> {
  if (actionIds.length === 0) return;
  await manager.query(
    `INSERT INTO callbacks (id, action_id, organization_id, event_ref, ticket_ref, order_key, receiver, payload)
     SELECT gen_random_uuid(), a.id, a.organization_id, a.event_ref, a.ticket_ref, COALESCE(a.ticket_ref, a.event_ref), ${receiverSql("e.callback_url")},
            jsonb_build_object(
              'txHash', a.tx_hash,
              'transactionType', CASE WHEN a.ticket_ref IS NULL THEN 'event' ELSE 'ticket' END,
              'action', a.kind,
              'eventId', e.event_id,
              'ticketId', t.ticket_id,
              'actionPromise', a.id,
              -- A change with nothing on chain is final once accepted: the receiver sees it confirmed.
              'status', CASE WHEN a.status = 'no_broadcast_required' THEN 'confirmed' ELSE a.status END,
              'error', CASE WHEN a.error_code IS NULL THEN NULL ELSE jsonb_build_object('code', a.error_code, 'message', a.error_message) END,
              'blockNumber', a.block_number,
              'blockHash', a.block_hash,
              'tokenId', t.token_id::text,
              'chainId', $2::bigint,
              'registryAddress', $3::text)
            || CASE WHEN a.kind = 'transferred' THEN jsonb_build_object('from', a.payload->>'from', 'to', a.payload->>'to') ELSE '{}'::jsonb END
       FROM chain_actions a
       JOIN events e ON e.id = a.event_ref
       LEFT JOIN tickets t ON t.id = a.ticket_ref
      WHERE a.id = ANY($1::uuid[])
      ORDER BY a.seq
     ON CONFLICT (action_id) DO NOTHING`,
    [actionIds, chainId === null ? null : chainId.toString(), registryAddress],
  );
}

/**
 * Gives the pending callbacks of these events the receiver of their event's callbackUrl as it is now,
 * inside the caller's transaction, after the events were written: an event whose callbackUrl changed
 * sends its waiting callbacks to the new receiver, and they count against its share. (Callbacks that
 * are no longer pending get theirs again when redelivered.)
 */
export async function retargetCallbacks(manager: EntityManager, eventRefs: readonly string[]): Promise<void> {
  if (eventRefs.length === 0) return;
  await manager.query(
    `UPDATE callbacks c SET receiver = ${receiverSql("e.callback_url")}, updated_at = now()
       FROM events e
      WHERE e.id = ANY($1::uuid[]) AND c.organization_id = e.organization_id AND c.event_ref = e.id
        AND c.status = 'pending' AND c.receiver <> ${receiverSql("e.callback_url")}`,
    [eventRefs],
  );
}
