/**
 * SQL over a callback `c` about its receiver, shared by the outbox's redelivery and the receivers'
 * health: the receiver is its webhook endpoint (`c.webhook_ref`), or with none its event's callbackUrl.
 */

/** The receiver's URL as it is now. */
export const TARGET_URL = `COALESCE((SELECT w.url FROM webhook_endpoints w WHERE w.id = c.webhook_ref), (SELECT e.callback_url FROM events e WHERE e.id = c.event_ref))`;

/** Whether the receiver is disabled now: its callbacks are then kept, not attempted. */
export const RECEIVER_DISABLED = `COALESCE(CASE WHEN c.webhook_ref IS NULL THEN (SELECT e.callback_disabled_at IS NOT NULL FROM events e WHERE e.id = c.event_ref)
                                 ELSE (SELECT NOT w.enabled FROM webhook_endpoints w WHERE w.id = c.webhook_ref) END, false)`;
