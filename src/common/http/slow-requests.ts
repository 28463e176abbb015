import type { Server } from "node:http";

/**
 * Closes the connection of a client that sends its request too slowly (Node answers 408 and
 * closes): its headers after `headersTimeoutMs`, the whole request, body included, after
 * `requestTimeoutMs`. Node's defaults (60 s, 300 s) let one client hold connections, and the
 * buffers of half-read bodies, for minutes. An answer that takes long (a live status stream) is not
 * limited: both count only until the request has arrived.
 */
export function limitSlowRequests(server: Server, limits: { headersTimeoutMs: number; requestTimeoutMs: number }): void {
  server.headersTimeout = limits.headersTimeoutMs;
  server.requestTimeout = limits.requestTimeoutMs;
  // Node compares its connections with both limits on a timer (every 30 s by default, read when the
  // server starts listening): a 15 s limit would be enforced anywhere from 15 to 45 s.
  (server as Server & { connectionsCheckingInterval: number }).connectionsCheckingInterval = Math.min(1_000, Math.ceil(limits.headersTimeoutMs / 4));
}
