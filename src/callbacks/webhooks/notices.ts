import type { ClaimedCallback } from "../callback-outbox.store";
import type { NoticeAction } from "./webhook-actions";

/**
 * The bodies of the callbacks the service sends about callbacks themselves (docs/integrators/callbacks.md,
 * Notices): `transactionType` "notice", so a receiver that branches on it sees they are not an
 * action's; they carry no txHash, actionPromise or chain facts.
 */

/** A notice bound for the organization's webhook endpoints that take its action, but the one it is about. */
export interface Notice {
  organizationId: string;
  /** The endpoint it is about, which does not get it; null when it is about an event's callbackUrl. */
  aboutWebhookId: string | null;
  payload: Record<string, unknown> & { action: NoticeAction };
}

/** A receiver the service has just disabled for failing every attempt since `failingSince`. */
export interface DisabledReceiver {
  organizationId: string;
  /** The endpoint; null for an event's callbackUrl. */
  webhookId: string | null;
  /** The event whose callbackUrl it is (its ref and the integrator's eventId); null for an endpoint. */
  eventRef: string | null;
  eventId: string | null;
  url: string;
  failingSince: Date;
  disabledAt: Date;
}

/** The body of POST /api/v1/webhooks/{webhookId}/test: nothing but what it is, for whom, and when. */
export function testBody(webhookId: string, sentAt: Date): Record<string, unknown> {
  return { action: "test", transactionType: "notice", webhookId, sentAt: sentAt.toISOString() };
}

/**
 * endpoint_disabled: which receiver (the endpoint, or the event whose callbackUrl it is), since when
 * it failed and when it was disabled. `receiver` is the URL's scheme, host and port only: its path or
 * query may carry a token the other endpoints are not meant to see.
 */
export function endpointDisabledNotice(disabled: DisabledReceiver): Notice {
  return {
    organizationId: disabled.organizationId,
    aboutWebhookId: disabled.webhookId,
    payload: {
      action: "endpoint_disabled",
      transactionType: "notice",
      webhookId: disabled.webhookId,
      eventId: disabled.eventId,
      receiver: originOf(disabled.url),
      failingSince: disabled.failingSince.toISOString(),
      disabledAt: disabled.disabledAt.toISOString(),
    },
  };
}

/** callback_exhausted: which callback used up its attempts (its id, receiver and action), and its last answer. */
export function callbackExhaustedNotice(callback: ClaimedCallback, last: { statusCode: number | null; error: string | null }, exhaustedAt: Date): Notice {
  const body = callback.payload;
  return {
    organizationId: callback.organizationId,
    aboutWebhookId: callback.webhookId,
    payload: {
      action: "callback_exhausted",
      transactionType: "notice",
      callbackId: callback.id,
      webhookId: callback.webhookId,
      eventId: body.eventId ?? null,
      ticketId: body.ticketId ?? null,
      actionPromise: callback.actionId,
      exhaustedAction: body.action ?? null,
      attempts: callback.attempts + 1,
      lastStatusCode: last.statusCode,
      lastError: last.error,
      exhaustedAt: exhaustedAt.toISOString(),
    },
  };
}

function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return "(not a URL)";
  }
}
