import { createHmac, timingSafeEqual } from "node:crypto";

import type { ActionStatus } from "./types.js";

/**
 * Verifying the service's callbacks, exactly as it signs them (src/callbacks/delivery/callback-signing.ts,
 * per Standard Webhooks): headers `webhook-id` (the callback's id, the same on every attempt),
 * `webhook-timestamp` (Unix seconds) and `webhook-signature`, a space-separated list of
 * `v1,<base64 HMAC-SHA256>` (one per active secret: two during a secret rotation's grace period).
 * The HMAC key is the base64 part of the organization's `whsec_…` secret, decoded; the signed string
 * is `{webhook-id}.{webhook-timestamp}.{raw body}`.
 *
 * Verify the raw body as it arrived (a string or the bytes), before any JSON parsing middleware:
 * a re-serialized body does not match the signature.
 */

/** The JSON body of an action's callback: one per final action, to its event's callbackUrl and each webhook endpoint that takes it (docs/integrators/callbacks.md). */
export interface CallbackBody {
  /** The transaction that carried the action; null when nothing went on chain. Several callbacks may share one. */
  txHash: string | null;
  transactionType: "event" | "ticket";
  /** What the action did (as in the action's status). */
  action: ActionStatus["action"];
  eventId: string;
  /** Null for event actions. */
  ticketId: string | null;
  /** The txPromise / actionPromise the action was accepted with. */
  actionPromise: string;
  /** confirmed (also for changes with nothing on chain) or error (the chain refused the item: see error). */
  status: "confirmed" | "error";
  error: { code: string; message: string | null } | null;
  blockNumber: number | null;
  /** With blockNumber and txHash, checkable against any node; null where blockNumber is. */
  blockHash: string | null;
  /** The ticket's ERC-721 token id, as a decimal string; null for event actions. */
  tokenId: string | null;
  chainId: number | null;
  registryAddress: string | null;
  /** A `transferred` callback only: the wallet the claimed token left. */
  from?: string;
  /** A `transferred` callback only: the wallet it went to. */
  to?: string;
}

/** POST /api/v1/webhooks/{webhookId}/test's callback, to that endpoint only. */
export interface TestNotice {
  action: "test";
  transactionType: "notice";
  webhookId: string;
  /** ISO 8601. */
  sentAt: string;
}

/** A receiver of the organization was disabled for failing every attempt for the operator's WEBHOOK_DISABLE_AFTER_HOURS (120 by default). */
export interface EndpointDisabledNotice {
  action: "endpoint_disabled";
  transactionType: "notice";
  /** The endpoint disabled; null when it is an event's callbackUrl. */
  webhookId: string | null;
  /** The event whose callbackUrl was disabled; null for an endpoint. */
  eventId: string | null;
  /** Its URL's scheme, host and port (never its path or query). */
  receiver: string;
  failingSince: string;
  disabledAt: string;
}

/** A callback used up its attempts (it stays in the log as failed, redeliverable). */
export interface CallbackExhaustedNotice {
  action: "callback_exhausted";
  transactionType: "notice";
  /** The exhausted callback (its webhook-id), to GET or redeliver. */
  callbackId: string;
  /** The endpoint it went to; null for its event's callbackUrl. */
  webhookId: string | null;
  eventId: string | null;
  ticketId: string | null;
  actionPromise: string;
  exhaustedAction: ActionStatus["action"];
  attempts: number;
  lastStatusCode: number | null;
  lastError: string | null;
  exhaustedAt: string;
}

/** What the service sends about callbacks themselves, to webhook endpoints only (an event's callbackUrl never gets one). */
export type NoticeBody = TestNotice | EndpointDisabledNotice | CallbackExhaustedNotice;

/** Any body the service signs: an action's callback, or a notice. */
export type WebhookBody = CallbackBody | NoticeBody;

/** Whether a verified body is a notice (`transactionType: "notice"`) rather than an action's callback. */
export function isNotice(body: WebhookBody): body is NoticeBody {
  return body.transactionType === "notice";
}

/** Incoming request headers: Node's `IncomingHttpHeaders` (lower-case names), a plain record or a fetch `Headers`. */
export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>;

export interface VerifyWebhookOptions {
  /** The organization's secret (`whsec_…`), or several: during a rotation, either one verifies. */
  secret: string | readonly string[];
  /** How far `webhook-timestamp` may be from now, either way, in seconds (replay window). 5 minutes by default. */
  toleranceSeconds?: number;
  /** The current time (for tests). */
  now?: Date;
}

export type WebhookErrorReason =
  "missing_header" | "invalid_timestamp" | "timestamp_too_old" | "timestamp_too_new" | "invalid_secret" | "invalid_signature" | "invalid_body";

/** Why a callback was not accepted as the service's. Answer it with a 4xx (the service retries 4xx other than 410). */
export class WebhookVerificationError extends Error {
  constructor(
    readonly reason: WebhookErrorReason,
    message: string,
  ) {
    super(message);
    this.name = "WebhookVerificationError";
  }
}

export const WEBHOOK_HEADERS = { id: "webhook-id", timestamp: "webhook-timestamp", signature: "webhook-signature" } as const;

const DEFAULT_TOLERANCE_SECONDS = 5 * 60;
const SECRET_PREFIX = "whsec_";

/**
 * Checks that a callback was signed by the service with one of `secret` within the time window and
 * returns its parsed body (an action's callback, or on a webhook endpoint a notice: tell them apart
 * with isNotice); throws a WebhookVerificationError (with `reason`) otherwise. Signatures are
 * compared in constant time. Receivers should still drop duplicates by `webhook-id`.
 */
export function verifyWebhook(rawBody: string | Uint8Array, headers: WebhookHeaders, options: VerifyWebhookOptions): WebhookBody {
  const id = headerOf(headers, WEBHOOK_HEADERS.id);
  const timestamp = headerOf(headers, WEBHOOK_HEADERS.timestamp);
  const signatureHeader = headerOf(headers, WEBHOOK_HEADERS.signature);
  if (!id || !timestamp || !signatureHeader) {
    throw new WebhookVerificationError("missing_header", `a callback carries ${Object.values(WEBHOOK_HEADERS).join(", ")}`);
  }

  if (!/^\d{1,15}$/.test(timestamp)) throw new WebhookVerificationError("invalid_timestamp", `webhook-timestamp is not Unix seconds: ${timestamp}`);
  const tolerance = options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  const nowSeconds = Math.floor((options.now ?? new Date()).getTime() / 1000);
  const sentAt = Number(timestamp);
  if (nowSeconds - sentAt > tolerance) throw new WebhookVerificationError("timestamp_too_old", `signed ${nowSeconds - sentAt} s ago, more than ${tolerance} s`);
  if (sentAt - nowSeconds > tolerance) throw new WebhookVerificationError("timestamp_too_new", `signed ${sentAt - nowSeconds} s in the future`);

  const body = typeof rawBody === "string" ? Buffer.from(rawBody, "utf8") : Buffer.from(rawBody.buffer, rawBody.byteOffset, rawBody.byteLength);
  const given = signatureHeader
    .split(" ")
    .map((entry) => entry.split(","))
    .filter(([version, signature]) => version === "v1" && signature)
    .map(([, signature]) => Buffer.from(signature, "utf8"));
  const secrets = typeof options.secret === "string" ? [options.secret] : options.secret;
  if (secrets.length === 0) throw new WebhookVerificationError("invalid_secret", "no secret to verify with");
  const matched = secrets.some((secret) => {
    const expected = Buffer.from(createHmac("sha256", keyOf(secret)).update(`${id}.${timestamp}.`, "utf8").update(body).digest("base64"), "utf8");
    // Every signature is compared (no early exit on the first match), each in constant time.
    return given.map((signature) => signature.length === expected.length && timingSafeEqual(signature, expected)).includes(true);
  });
  if (!matched) throw new WebhookVerificationError("invalid_signature", "no webhook-signature matches the body with this secret");

  try {
    return JSON.parse(body.toString("utf8")) as WebhookBody;
  } catch {
    throw new WebhookVerificationError("invalid_body", "the signed body is not JSON");
  }
}

/** The HMAC key of a `whsec_…` secret (the prefix is optional, as in the Standard Webhooks libraries). */
function keyOf(secret: string): Buffer {
  const encoded = secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret;
  const key = Buffer.from(encoded, "base64");
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(encoded) || key.length === 0) throw new WebhookVerificationError("invalid_secret", "the secret is not whsec_ and base64");
  return key;
}

function headerOf(headers: WebhookHeaders, name: string): string | undefined {
  if (typeof (headers as Headers).get === "function") return (headers as Headers).get(name) ?? undefined;
  const record = headers as Record<string, string | string[] | undefined>;
  const key = Object.keys(record).find((candidate) => candidate.toLowerCase() === name);
  const value = key === undefined ? undefined : record[key];
  return Array.isArray(value) ? value[0] : value;
}
