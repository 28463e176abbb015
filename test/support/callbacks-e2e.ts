import { createHmac, timingSafeEqual } from "node:crypto";

import { Webhook } from "standardwebhooks";

import type { ApiClient as Api } from "./api-client";
import { id as uid } from "./fixtures";
import type { ReceivedRequest } from "./https-receiver";

/** Shared helpers of the callback delivery end-to-end tests (test/callbacks). */

export type { ApiClient as Api } from "./api-client";

/**
 * The app's environment for delivering to the local HTTPS receivers: by name (`localhost`, allowed
 * to be loopback), polled often, with the retry schedule shrunk a hundredfold (10 s → 100 ms).
 */
export const DELIVERY_ENV = {
  CALLBACK_DELIVERY: "true",
  CALLBACK_ALLOW_HOSTS: "localhost",
  CALLBACK_POLL_MS: "50",
  CALLBACK_RETRY_SCALE: "0.01",
};

export { uid };

export async function eventually<T>(check: () => Promise<T | undefined>, timeoutMs = 20_000, what = "condition"): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Posts /stream and returns the action promises, failing if any action was refused. */
export async function stream(api: Api, actions: { action: string; data: Record<string, unknown> }[]): Promise<string[]> {
  const answer = await api.post("/stream", actions);
  if (answer.status !== 200 || answer.body.data.some((item: { status: string }) => item.status !== "success")) {
    throw new Error(`not every action was accepted: ${answer.status} ${JSON.stringify(answer.body)}`);
  }
  return answer.body.data.map((item: { actionPromise: string }) => item.actionPromise);
}

/** Waits until every action is final (confirmed, error or no_broadcast_required) and returns their views. */
export async function settled(api: Api, promises: string[], timeoutMs = 60_000): Promise<any[]> {
  return Promise.all(
    promises.map((promise) =>
      eventually(
        async () => {
          const answer = await api.get(`/api/v1/actions/${promise}`);
          return ["confirmed", "error", "no_broadcast_required"].includes(answer.body?.status) ? answer.body : undefined;
        },
        timeoutMs,
        `action ${promise}`,
      ),
    ),
  );
}

/**
 * An event whose callbacks go to `callbackUrl` and `count` tickets sold on it, all confirmed on the
 * chain (their newEvent and sold callbacks are then on their way to `callbackUrl`).
 */
export async function eventWithTickets(api: Api, callbackUrl: string, count: number): Promise<{ eventId: string; ticketIds: string[]; promises: string[] }> {
  const eventId = uid("event");
  const ticketIds = Array.from({ length: count }, () => uid("ticket"));
  const promises = await stream(api, [
    { action: "newEvent", data: { eventId, eventName: "Concert", currency: "EUR", callbackUrl } },
    ...ticketIds.map((ticketId) => ({ action: "soldTicket", data: { eventId, ticketId, price: "10.00", orderTime: 1_750_000_000 } })),
  ]);
  const views = await settled(api, promises);
  if (views.some((view) => view.status !== "confirmed")) throw new Error(`setup actions not confirmed: ${JSON.stringify(views)}`);
  return { eventId, ticketIds, promises };
}

/** updateTicket actions, in this order: their callbacks are due once the chain confirms them. */
export function updateTickets(api: Api, ticketIds: string[]): Promise<string[]> {
  return stream(
    api,
    ticketIds.map((ticketId, index) => ({ action: "updateTicket", data: { ticketId, uri: `https://meta.example.com/${ticketId}/${index}` } })),
  );
}

/** Matches the callbacks of one ticket's updateTicket actions (for HttpsReceiver.script). */
export const updateTicketOf = (ticketId: string) => (body: any) => body?.action === "updateTicket" && body?.ticketId === ticketId;

/**
 * The callback of an action to its event's callbackUrl, as GET /api/v1/callbacks shows it (undefined
 * while there is none); `webhookId`: the copy of that webhook endpoint instead.
 */
export async function callbackOf(api: Api, eventId: string, promise: string, webhookId: string | null = null): Promise<any> {
  const answer = await api.get(`/api/v1/callbacks?eventId=${encodeURIComponent(eventId)}&limit=500`);
  if (answer.status !== 200) throw new Error(`GET /api/v1/callbacks answered ${answer.status}: ${JSON.stringify(answer.body)}`);
  return answer.body.find((view: { actionPromise: string; webhookId: string | null }) => view.actionPromise === promise && view.webhookId === webhookId);
}

/** Waits until the action's callback satisfies `done` (by default: delivered or failed). */
export function callbackWhen(
  api: Api,
  eventId: string,
  promise: string,
  done: (view: any) => boolean = (view) => view.status !== "pending",
  timeoutMs = 20_000,
): Promise<any> {
  return eventually(
    async () => {
      const view = await callbackOf(api, eventId, promise);
      return view && done(view) ? view : undefined;
    },
    timeoutMs,
    `callback of ${promise}`,
  );
}

/** The requests a receiver saw for one action's callback (by actionPromise in the body). */
export const requestsFor = (requests: ReceivedRequest[], promise: string) => requests.filter((request) => JSON.parse(request.body).actionPromise === promise);

/** The `v1,…` signatures of the webhook-signature header. */
export const signaturesOf = (request: ReceivedRequest) => String(request.headers["webhook-signature"]).split(" ");

/** The request's Standard Webhooks headers, with the signature header replaced if asked. */
export function webhookHeaders(request: ReceivedRequest, signature = String(request.headers["webhook-signature"])): Record<string, string> {
  return {
    "webhook-id": String(request.headers["webhook-id"]),
    "webhook-timestamp": String(request.headers["webhook-timestamp"]),
    "webhook-signature": signature,
  };
}

/**
 * Verifies a received callback twice: with the Standard Webhooks reference verifier (the
 * `standardwebhooks` package; the npm alternative, `svix`, wraps the same code), and with an
 * independent implementation of the specification's check on node:crypto — HMAC-SHA256 with the
 * base64-decoded secret over `{webhook-id}.{webhook-timestamp}.{raw body}`, base64, compared in
 * constant time with each `v1,` signature of the header. Returns the parsed body.
 */
export function verifyCallback(request: ReceivedRequest, secret: string, headers = webhookHeaders(request)): any {
  const body = new Webhook(secret).verify(request.body, headers);
  if (!hmacMatches(request.body, headers, secret)) throw new Error("the node:crypto check of the signature failed");
  return body;
}

/** The node:crypto check alone (true if one `v1,` signature matches). */
export function hmacMatches(rawBody: string, headers: Record<string, string>, secret: string): boolean {
  if (!secret.startsWith("whsec_")) throw new Error("not a whsec_ secret");
  const key = Buffer.from(secret.slice("whsec_".length), "base64");
  const expected = Buffer.from(
    createHmac("sha256", key).update(`${headers["webhook-id"]}.${headers["webhook-timestamp"]}.${rawBody}`, "utf8").digest("base64"),
  );
  return headers["webhook-signature"].split(" ").some((entry) => {
    const [version, signature] = entry.split(",");
    const given = Buffer.from(signature ?? "");
    return version === "v1" && given.length === expected.length && timingSafeEqual(given, expected);
  });
}

/** Adds a webhook endpoint of the API client's organization and returns its id, failing on any other answer than 201. */
export async function createWebhook(api: Api, body: { url: string; actions?: string[] | null; description?: string }): Promise<string> {
  const answer = await api.post("/api/v1/webhooks", body);
  if (answer.status !== 201) throw new Error(`POST /api/v1/webhooks answered ${answer.status}: ${JSON.stringify(answer.body)}`);
  return answer.body.webhookId;
}

/** Waits until the endpoint's view satisfies `done` and returns it. */
export function webhookWhen(api: Api, webhookId: string, done: (view: any) => boolean, timeoutMs = 20_000): Promise<any> {
  return eventually(
    async () => {
      const answer = await api.get(`/api/v1/webhooks/${webhookId}`);
      return answer.status === 200 && done(answer.body) ? answer.body : undefined;
    },
    timeoutMs,
    `webhook ${webhookId}`,
  );
}

/** The callbacks of one webhook endpoint, newest first, as GET /api/v1/callbacks?webhookId= lists them. */
export async function callbacksOfWebhook(api: Api, webhookId: string): Promise<any[]> {
  const answer = await api.get(`/api/v1/callbacks?webhookId=${webhookId}&limit=500`);
  if (answer.status !== 200) throw new Error(`GET /api/v1/callbacks answered ${answer.status}: ${JSON.stringify(answer.body)}`);
  return answer.body;
}
