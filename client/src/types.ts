import type { paths } from "./schema.js";

/**
 * Named types for the bodies integrators handle most, taken from the generated `paths` by endpoint
 * rather than by schema name: an endpoint is the contract, the names of the document's schemas
 * (`…Dto`) are the service's implementation and may change without the API changing.
 */

/** The JSON body of a content map (`{ "application/json": T }`). */
type Json<T> = T extends { content: { "application/json": infer Body } } ? Body : never;

/** The 200 answer's JSON body of an operation. */
export type OkBody<Path extends keyof paths, Method extends keyof paths[Path]> = paths[Path][Method] extends { responses: { 200: infer Answer } }
  ? Json<Answer>
  : never;

/** The JSON request body of an operation. */
export type RequestBody<Path extends keyof paths, Method extends keyof paths[Path]> = paths[Path][Method] extends { requestBody?: infer Body }
  ? Json<NonNullable<Body>>
  : never;

/** POST /api/v1/events: an event to register. */
export type NewEvent = RequestBody<"/api/v1/events", "post">;
/** Its answer: the txPromise of the registration. */
export type EventAccepted = OkBody<"/api/v1/events", "post">;
/** POST /api/v1/events/{eventId}/cancel's answer: the txPromise of the event's cancellation (callback action cancelledEvent). */
export type EventCancellation = OkBody<"/api/v1/events/{eventId}/cancel", "post">;
/** One item of POST /api/v1/sold. */
export type SoldTicket = RequestBody<"/api/v1/sold", "post">[number];
/** One item of the answer of the per-action ticket endpoints (/api/v1/sold, /resold, ...). */
export type TicketResult = OkBody<"/api/v1/sold", "post">[number];
/** One action of POST /api/v1/stream. */
export type StreamAction = RequestBody<"/api/v1/stream", "post">[number];
/** The answer of POST /api/v1/stream. */
export type StreamResponse = OkBody<"/api/v1/stream", "post">;
/** One entry of a stream answer's `data`. */
export type StreamResult = StreamResponse["data"][number];
/** GET /api/v1/actions/{promise}: an action's status. */
export type ActionStatus = OkBody<"/api/v1/actions/{promise}", "get">;
/** The status names of an action (waiting_broadcast, pending, confirmed, ...). */
export type ActionState = ActionStatus["status"];
/** GET /api/v1/events/{eventId}. */
export type EventView = OkBody<"/api/v1/events/{eventId}", "get">;
/** GET /api/v1/tickets/{ticketId}. */
export type TicketView = OkBody<"/api/v1/tickets/{ticketId}", "get">;
/** GET /api/v1/tickets?holder=…: a page of the tickets an address holds. */
export type TicketPage = OkBody<"/api/v1/tickets", "get">;
/** GET /tokens/{tokenId}: a token's ERC-721 metadata JSON (public). */
export type TokenMetadata = OkBody<"/tokens/{tokenId}", "get">;
/** GET /api/v1/callbacks/{callbackId}: a callback with its delivery attempts. */
export type CallbackView = OkBody<"/api/v1/callbacks/{callbackId}", "get">;
/** GET /api/v1/usage: the organization's usage and gas statement over a range (gas and feeWei as decimal strings). */
export type UsageStatement = OkBody<"/api/v1/usage", "get">;
/** One group of a statement: a UTC day (`day`) or an event (`eventId`). */
export type UsageGroup = UsageStatement["groups"][number];
/** One action kind's line in a group: accepted, confirmed, failed, transactions, gas, feeWei. */
export type UsageLine = UsageGroup["actions"][number];
/** GET /api/v1/webhooks/{webhookId}: a webhook endpoint, its filter and whether it is enabled or failing. */
export type WebhookEndpoint = OkBody<"/api/v1/webhooks/{webhookId}", "get">;
/** POST /api/v1/webhooks: a new endpoint (url; actions, absent for all; description). */
export type NewWebhook = RequestBody<"/api/v1/webhooks", "post">;
/** PATCH /api/v1/webhooks/{webhookId}: the fields to change (url, actions, description, enabled). */
export type WebhookChanges = RequestBody<"/api/v1/webhooks/{webhookId}", "patch">;
/** POST /api/v1/webhooks/{webhookId}/test: what the endpoint answered its test callback. */
export type WebhookTestResult = OkBody<"/api/v1/webhooks/{webhookId}/test", "post">;
/** POST /api/v1/holder-proofs/challenge: the typed data for the holder's wallet (eth_signTypedData_v4 as is). */
export type HolderProofChallenge = OkBody<"/api/v1/holder-proofs/challenge", "post">;
/** POST /api/v1/holder-proofs/verify's answer: valid, or the reason why not. */
export type HolderProofVerdict = OkBody<"/api/v1/holder-proofs/verify", "post">;

/**
 * A 403 answer: exactly `{"message":"Forbidden"}` for a missing, unknown or revoked key; with `code`
 * for a live key refused (every operation that takes a key answers the same body).
 */
export type ForbiddenBody = Json<paths["/api/v1/sold"]["post"]["responses"][403]>;
/**
 * Why a live key was refused: `key_scope` (its scope does not cover the operation, or one of a
 * /stream's actions: nothing was applied) or `key_ip` (it is bound to IP ranges and the request came
 * from elsewhere). Each operation's `x-key-scope` in the document names the scope it needs.
 */
export type KeyRefusalCode = NonNullable<ForbiddenBody["code"]>;

/** The statuses an action ends in: it changes no more after one of them. */
export const FINAL_ACTION_STATES = ["confirmed", "error", "no_broadcast_required", "cancelled"] as const satisfies readonly ActionState[];
