/**
 * Every error the API answers with has a stable code, a human message and, for field problems, the
 * field. Codes are part of the interface: integrators branch on them.
 */
export const ERROR_CODES = [
  "invalid_json",
  "invalid_body",
  "too_many_items",
  "payload_too_large",
  "nesting_too_deep",
  "invalid_item",
  "invalid_field",
  "unknown_action",
  "ticketeer_mismatch",
  "event_exists",
  "event_not_found",
  "event_cancelled",
  "ticket_exists",
  "ticket_not_found",
  "ticket_checked_in",
  "ticket_invalidated",
  "ticket_claimed",
  "ticket_not_checked_in",
  "action_not_found",
  "action_not_cancellable",
  "callback_not_found",
  "receiver_disabled",
  "webhook_not_found",
  "webhook_limit_reached",
  "token_not_found",
  "not_found",
  "rate_limited",
  "queue_full",
  "idempotency_key_reused",
  "idempotency_key_in_use",
  "idempotency_answer_not_kept",
  "idempotency_keys_exhausted",
  "https_required",
  "service_unavailable",
  "internal_error",
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

export interface ErrorDetail {
  code: ErrorCode;
  message: string;
  field?: string;
}

export function errorDetail(code: ErrorCode, message: string, field?: string): ErrorDetail {
  return field === undefined ? { code, message } : { code, message, field };
}

export function invalidField(field: string, message: string): ErrorDetail {
  return { code: "invalid_field", field, message: `${field} ${message}` };
}
