import type { EntityManager } from "typeorm";

import { receiverSql } from "./callback-receiver";

/** The last error of a callback written, or stopped, while its receiver is disabled: kept, never attempted until redelivered. */
export const RECEIVER_DISABLED_ERROR = "not sent: its receiver is disabled (enable it again, then redeliver)";

/**
 * Writes the callbacks of finalized actions into the outbox, inside the caller's transaction: one
 * per action for its event's callbackUrl, and one for each webhook endpoint of its organization
 * that takes the action (docs/integrators/callbacks.md). Each body holds the interface's fields
 * (txHash, transactionType, action, eventId, ticketId) plus the promise, the status ("confirmed" or
 * "error") and the chain facts; a transferred action adds the wallets it moved between (from, to).
 *
 * One statement for the batch: the organizations' endpoints are read once for all of it (an index
 * probe per organization, however many callbacks), never per callback. A copy for a disabled
 * receiver is written `failed` with RECEIVER_DISABLED_ERROR: kept for redelivery, not attempted.
 * Delivery reads the receiver's URL when it sends; each callback keeps that URL's receiver, by
 * which a claim walks the outbox (retargetCallbacks keeps it true for the callbackUrl's copies).
 */
export async function insertCallbacks(
  manager: EntityManager,
  actionIds: readonly string[],
  chainId: bigint | null,
  registryAddress: string | null,
): Promise<void> {
  if (actionIds.length === 0) return;
  await manager.query(
    `WITH finalized AS MATERIALIZED (
       SELECT a.id, a.seq, a.organization_id, a.event_ref, a.ticket_ref, a.kind, e.callback_url, e.callback_disabled_at IS NOT NULL AS callback_url_disabled,
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
              || CASE WHEN a.kind = 'transferred' THEN jsonb_build_object('from', a.payload->>'from', 'to', a.payload->>'to') ELSE '{}'::jsonb END AS payload
         FROM chain_actions a
         JOIN events e ON e.id = a.event_ref
         LEFT JOIN tickets t ON t.id = a.ticket_ref
        WHERE a.id = ANY($1::uuid[])),
     endpoints AS MATERIALIZED (
       SELECT w.id, w.organization_id, w.url, w.actions, w.enabled FROM webhook_endpoints w
        WHERE w.organization_id IN (SELECT DISTINCT organization_id FROM finalized)),
     copies AS (
       SELECT f.*, NULL::uuid AS webhook_ref, f.callback_url AS url, f.callback_url_disabled AS held FROM finalized f
       UNION ALL
       SELECT f.*, w.id, w.url, NOT w.enabled FROM finalized f
         JOIN endpoints w ON w.organization_id = f.organization_id AND (w.actions IS NULL OR f.kind = ANY(w.actions)))
     INSERT INTO callbacks (id, action_id, organization_id, event_ref, ticket_ref, order_key, webhook_ref, receiver, status, last_error, payload)
     SELECT gen_random_uuid(), c.id, c.organization_id, c.event_ref, c.ticket_ref, COALESCE(c.ticket_ref, c.event_ref), c.webhook_ref, ${receiverSql("c.url")},
            CASE WHEN c.held THEN 'failed' ELSE 'pending' END, CASE WHEN c.held THEN $4 END, c.payload
       FROM copies c
      ORDER BY c.seq, c.webhook_ref NULLS FIRST
     ON CONFLICT (action_id, webhook_ref) WHERE action_id IS NOT NULL DO NOTHING`,
    [actionIds, chainId === null ? null : chainId.toString(), registryAddress, RECEIVER_DISABLED_ERROR],
  );
}

/**
 * Gives the pending callbacks of these events' callbackUrl the receiver of that URL as it is now,
 * inside the caller's transaction, after the events were written: an event whose callbackUrl changed
 * sends its waiting callbacks to the new receiver, and they count against its share. (Callbacks that
 * are no longer pending get theirs again when redelivered; webhook endpoints' copies keep theirs.)
 */
export async function retargetCallbacks(manager: EntityManager, eventRefs: readonly string[]): Promise<void> {
  if (eventRefs.length === 0) return;
  await manager.query(
    `UPDATE callbacks c SET receiver = ${receiverSql("e.callback_url")}, updated_at = now()
       FROM events e
      WHERE e.id = ANY($1::uuid[]) AND c.organization_id = e.organization_id AND c.event_ref = e.id AND c.webhook_ref IS NULL
        AND c.status = 'pending' AND c.receiver <> ${receiverSql("e.callback_url")}`,
    [eventRefs],
  );
}
