/**
 * A typed client of the ticket registry service, for integrators.
 *
 * The types (./schema.ts) are generated from the committed openapi.json by openapi-typescript
 * (`npm run client`); requests go through openapi-fetch, a thin typed wrapper over `fetch`. Paths,
 * parameters, bodies and answers are checked by the compiler against the document:
 *
 *   const registry = createRegistryClient({ baseUrl: "https://registry.example.com", apiKey });
 *   const { data, error } = await registry.POST("/api/v1/sold", { body: [{ eventId, ticketId, price: "49.95" }] });
 *
 * Shipped as the npm package @ticket-registry/client (client/package.json: an ESM and a CommonJS
 * build with their declarations, `npm run client:pack`), whose only dependency is openapi-fetch;
 * webhooks.ts needs only node:crypto, abi.ts nothing. The service itself never loads this folder
 * (`nest build` compiles src/ only, and the image has no client/).
 */
import createClient, { type Client, type ClientOptions } from "openapi-fetch";

import type { paths } from "./schema.js";
import { type ActionStatus, FINAL_ACTION_STATES } from "./types.js";

export type { components, operations, paths } from "./schema.js";
export * from "./types.js";
export * from "./webhooks.js";

/** The client: `registry.GET(path, init)`, `registry.POST(path, init)`, ... typed by the document. */
export type RegistryClient = Client<paths, "application/json">;

export interface RegistryClientOptions {
  /** The service's origin, e.g. `https://registry.example.com` (paths start with /api/v1). */
  baseUrl: string;
  /** The organization's API key, sent as the document's `api-key` security scheme: the X-Api-Key header. */
  apiKey: string;
  /** A fetch to use instead of the global one (a proxy agent, a test double, a retry wrapper). */
  fetch?: ClientOptions["fetch"];
  /** Further headers sent with every request. */
  headers?: Record<string, string>;
}

/** The header of the document's only security scheme (`api-key`, in: header). */
export const API_KEY_HEADER = "X-Api-Key";

/** An openapi-fetch client of the service, authenticated with the organization's API key. */
export function createRegistryClient({ baseUrl, apiKey, fetch, headers }: RegistryClientOptions): RegistryClient {
  return createClient<paths, "application/json">({
    baseUrl: baseUrl.replace(/\/+$/, ""),
    headers: { ...headers, [API_KEY_HEADER]: apiKey },
    ...(fetch ? { fetch } : {}),
  });
}

/** Thrown by waitForFinalStatus when the service answers other than 200. */
export class RegistryRequestError extends Error {
  constructor(
    readonly status: number,
    readonly body: unknown,
  ) {
    super(`the service answered ${status}: ${JSON.stringify(body)}`);
    this.name = "RegistryRequestError";
  }
}

/**
 * Polls GET /api/v1/actions/{promise} until the action is final (confirmed, error,
 * no_broadcast_required or cancelled) and returns its status. The callback brings the same news without
 * polling; this is for scripts, tests and reconciliation.
 */
export async function waitForFinalStatus(
  registry: RegistryClient,
  promise: string,
  { timeoutMs = 120_000, intervalMs = 500 }: { timeoutMs?: number; intervalMs?: number } = {},
): Promise<ActionStatus> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { data, error, response } = await registry.GET("/api/v1/actions/{promise}", { params: { path: { promise } } });
    if (!data) throw new RegistryRequestError(response.status, error);
    if ((FINAL_ACTION_STATES as readonly string[]).includes(data.status)) return data;
    if (Date.now() + intervalMs > deadline) throw new Error(`action ${promise} still ${data.status} after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
export * from "./abi.js";
