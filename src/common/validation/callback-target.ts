import { isIP } from "node:net";

import { nonPublicReason } from "./public-address";

/**
 * Host names allowed to be private (CALLBACK_ALLOW_HOSTS, development and tests only): set once at
 * startup from the configuration, read by the callbackUrl rule. Delivery honours the same list.
 */
let allowedHosts: ReadonlySet<string> = new Set();

export function allowPrivateCallbackHosts(hosts: readonly string[]): void {
  allowedHosts = new Set(hosts.map((host) => host.toLowerCase()));
}

/** An IPv6 literal with a zone id (`[fe80::1%25lo]`): the WHATWG URL parser, and so delivery, refuses it. */
const ZONE_ID = /^[a-z][a-z0-9+.-]*:\/\/(?:[^@/?#]*@)?\[[^\]]*%/i;

/**
 * Why a callbackUrl can never be delivered to, or null. Checked when the URL is accepted, so that the
 * integrator hears it at once instead of through callbacks that fail for 24 hours: user information
 * (`user:pass@`), an IPv6 zone id, and an IP literal that is not public unicast (public-address.ts:
 * private, loopback, link-local and so the 169.254.169.254 metadata endpoint, carrier-grade NAT,
 * multicast, documentation, every IPv6 range that embeds an IPv4 address such as `[::127.0.0.1]`...),
 * the same test delivery makes on the address it connects to. `localhost` names are loopback by
 * definition. Names are not resolved here: delivery checks the address each connection uses.
 */
export function callbackUrlProblem(value: string): string | null {
  if (ZONE_ID.test(value)) return "must not carry an IPv6 zone id (%25...): callbacks cannot be sent to it";
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return "must be a URL callbacks can be sent to";
  }
  if (url.username !== "" || url.password !== "") return "must not carry user information (user:password@)";
  const hostname = url.hostname.toLowerCase();
  if (allowedHosts.has(hostname)) return null;
  if (hostname === "localhost" || hostname.endsWith(".localhost")) return "must not name localhost: callbacks go to public addresses only";
  const address = hostname.startsWith("[") ? hostname.slice(1, -1) : hostname;
  if (isIP(address) === 0) return null;
  const reason = nonPublicReason(address);
  return reason === null ? null : `must not be an IP address that is not public unicast (${address} is ${reason}): callbacks go to public addresses only`;
}
