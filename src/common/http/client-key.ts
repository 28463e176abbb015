import { isIP } from "node:net";

import type { Request } from "express";
import ipaddr from "ipaddr.js";

/**
 * How much of an IPv6 address names one client: a /64, the smallest network a subscriber or a host is
 * usually given (RFC 6177), and one that lets its owner pick 2^64 addresses. Counting the full address
 * would give one host with a /64 unlimited budgets.
 */
export const IPV6_CLIENT_PREFIX_BITS = 64;

/**
 * The key that per-client-IP limits count under: an IPv4 address as it is, an IPv4-mapped IPv6 address
 * (`::ffff:203.0.113.7`, how a dual-stack socket reports IPv4 clients) as its IPv4 address, any other
 * IPv6 address as its /64 (`2001:db8:1:2::/64`). Anything unreadable shares the one key `unknown`.
 */
export function clientKeyOf(address: string | undefined): string {
  // Node's strict reading: ipaddr.js would also take inet_aton's shorthands ("203.0.113" as 203.0.0.113).
  if (address === undefined || isIP(address) === 0) return "unknown";
  const parsed = ipaddr.process(address);
  if (parsed.kind() === "ipv4") return parsed.toString();
  const network = ipaddr.IPv6.networkAddressFromCIDR(`${parsed.toNormalizedString()}/${IPV6_CLIENT_PREFIX_BITS}`);
  return `${network.toRFC5952String()}/${IPV6_CLIENT_PREFIX_BITS}`;
}

/** The request's client key: its client IP as Express reads it (behind TRUST_PROXY, from X-Forwarded-For), else the socket's peer. */
export function clientKeyOfRequest(request: Request): string {
  return clientKeyOf(request.ip ?? request.socket.remoteAddress);
}

/**
 * The request's client IP address, read as clientKeyOfRequest reads it (behind TRUST_PROXY, from
 * X-Forwarded-For; else the socket's peer), an IPv4-mapped IPv6 address as its IPv4 address; undefined
 * when there is none that reads as an address. The whole address: what a key's allowed ranges match.
 */
export function clientAddressOfRequest(request: Request): string | undefined {
  const address = request.ip ?? request.socket.remoteAddress;
  if (address === undefined || isIP(address) === 0) return undefined;
  return ipaddr.process(address).toString();
}
