import { isIP } from "node:net";

import ipaddr from "ipaddr.js";

/** Enough for a venue's gates and a back office; each request of the key is checked against every range. */
export const MAX_ALLOWED_IP_RANGES = 64;

export type AllowedIpsParse = { ranges: string[]; problem?: never } | { ranges?: never; problem: string };

/**
 * The ranges a key may be used from, from an operator's comma-separated list of addresses and CIDR
 * ranges (`203.0.113.0/24,2001:db8::/48,198.51.100.7`), in the form PostgreSQL's `cidr` stores (an
 * address alone is its /32 or /128); or why the list cannot be one. A range with bits set after its
 * prefix (`10.0.0.1/8`) is refused rather than widened silently: it is most likely a typo. An
 * IPv4-mapped IPv6 range is refused too: an IPv4 client is matched as IPv4 (see clientAddressOf), so
 * it would never match; it is written as IPv4.
 */
export function parseAllowedIps(list: string): AllowedIpsParse {
  const entries = list.split(",").map((entry) => entry.trim());
  if (entries.every((entry) => entry === "")) return { problem: "must name at least one IP address or CIDR range" };
  if (entries.length > MAX_ALLOWED_IP_RANGES) return { problem: `must name at most ${MAX_ALLOWED_IP_RANGES} ranges (got ${entries.length})` };
  const ranges: string[] = [];
  for (const entry of entries) {
    const range = parseRange(entry);
    if (typeof range !== "string") return { problem: range.problem };
    if (!ranges.includes(range)) ranges.push(range);
  }
  return { ranges };
}

function parseRange(entry: string): string | { problem: string } {
  if (entry === "") return { problem: "has an empty entry (two commas in a row, or one at an end)" };
  const [address, bits, ...rest] = entry.split("/");
  // A zone index (fe80::1%eth0) names an interface of one host, not a range of clients.
  const family = address.includes("%") ? 0 : isIP(address);
  if (family === 0 || rest.length > 0 || (bits !== undefined && !/^\d{1,3}$/.test(bits))) {
    return { problem: `"${entry}" is not an IP address or a CIDR range (such as 203.0.113.0/24 or 2001:db8::/48)` };
  }
  const maxBits = family === 6 ? 128 : 32;
  const prefix = bits === undefined ? maxBits : Number(bits);
  if (prefix > maxBits) return { problem: `"${entry}" has a prefix longer than ${maxBits} bits` };
  const parsed = ipaddr.parse(address);
  if (parsed instanceof ipaddr.IPv6 && parsed.isIPv4MappedAddress()) {
    return { problem: `"${entry}" is an IPv4-mapped IPv6 range: write it as IPv4 (${parsed.toIPv4Address().toString()})` };
  }
  const cidr = `${address}/${prefix}`;
  const network = family === 6 ? ipaddr.IPv6.networkAddressFromCIDR(cidr) : ipaddr.IPv4.networkAddressFromCIDR(cidr);
  const range = `${addressText(network)}/${prefix}`;
  if (addressText(network) !== addressText(parsed)) return { problem: `"${entry}" has bits set after its /${prefix} prefix: the range is ${range}` };
  return range;
}

function addressText(address: ipaddr.IPv4 | ipaddr.IPv6): string {
  return address instanceof ipaddr.IPv6 ? address.toRFC5952String() : address.toString();
}

/**
 * Whether a client address (clientAddressOf's: IPv4 as IPv4, whether it came as IPv4-mapped IPv6 or
 * not) lies in one of the ranges; `null` ranges allow every address. An unreadable address is
 * allowed by no list.
 */
export function ipAllowed(ranges: readonly string[] | null, address: string | undefined): boolean {
  if (ranges === null) return true;
  if (address === undefined || isIP(address) === 0) return false;
  const client = ipaddr.parse(address);
  return ranges.some((range) => {
    const [network, prefix] = ipaddr.parseCIDR(range);
    return network.kind() === client.kind() && client.match(network, prefix);
  });
}
