import { BlockList, isIP } from "node:net";

interface SpecialRange {
  name: string;
  cidr: string;
  /** Node's own matcher: it reads `::127.0.0.1` as the IPv4-compatible address it is (ipaddr.js reads it as IPv4-mapped). */
  block: BlockList;
}

function special(name: string, cidr: string): SpecialRange {
  const [network, bits] = cidr.split("/");
  const block = new BlockList();
  block.addSubnet(network, Number(bits), familyOf(network));
  return { name, cidr, block };
}

function familyOf(address: string): "ipv4" | "ipv6" {
  return isIP(address) === 6 ? "ipv6" : "ipv4";
}

/**
 * IPv4 addresses callbacks are never sent to: the IANA IPv4 Special-Purpose Address Registry
 * (all of it, the few globally reachable entries too: none is a place for a webhook receiver),
 * multicast and the rest of class E. Written out rather than taken from ipaddr.js's `range()`,
 * so that the list is read here and does not move with the library; delivery's library check
 * (request-filtering-agent, which uses `range()`) stays underneath, and the spec checks that this
 * list covers every range ipaddr.js knows.
 */
const IPV4_RANGES: readonly SpecialRange[] = [
  special("unspecified (this network)", "0.0.0.0/8"),
  special("private", "10.0.0.0/8"),
  special("carrier-grade NAT (shared address space)", "100.64.0.0/10"),
  special("loopback", "127.0.0.0/8"),
  special("link-local (cloud metadata endpoints)", "169.254.0.0/16"),
  special("private", "172.16.0.0/12"),
  special("IETF protocol assignments", "192.0.0.0/24"),
  special("documentation", "192.0.2.0/24"),
  special("AS112 DNS sink", "192.31.196.0/24"),
  special("AMT", "192.52.193.0/24"),
  special("deprecated 6to4 relay anycast", "192.88.99.0/24"),
  special("private", "192.168.0.0/16"),
  special("AS112 DNS sink", "192.175.48.0/24"),
  special("benchmarking", "198.18.0.0/15"),
  special("documentation", "198.51.100.0/24"),
  special("documentation", "203.0.113.0/24"),
  special("multicast", "224.0.0.0/4"),
  special("limited broadcast", "255.255.255.255/32"),
  special("reserved", "240.0.0.0/4"),
];

/**
 * IPv6: the IANA IPv6 Special-Purpose Address Registry, with these decisions. Every range that
 * embeds an IPv4 address is refused, whatever that address: IPv4-compatible (`::/96`, so
 * `[::127.0.0.1]`), IPv4-mapped, IPv4-translated, NAT64 (`64:ff9b::/96` too, although the registry
 * calls it globally reachable: the translator, not this check, would pick the IPv4 host, and
 * delivery's library refuses it anyway) and 6to4 (deprecated; relays are outside this check). All
 * of `2001::/23` is refused, Teredo and the globally reachable AMT, AS112 and ORCHIDv2 blocks among
 * them. Anything outside global unicast `2000::/3` is refused as well (the rest of `::/8`, `5f00::/16`,
 * what IANA has not allocated), so a range missing here fails closed.
 */
const IPV6_RANGES: readonly SpecialRange[] = [
  special("unspecified", "::/128"),
  special("loopback", "::1/128"),
  special("IPv4-compatible (deprecated)", "::/96"),
  special("IPv4-mapped", "::ffff:0:0/96"),
  special("IPv4-translated", "::ffff:0:0:0/96"),
  special("NAT64", "64:ff9b::/96"),
  special("local-use NAT64", "64:ff9b:1::/48"),
  special("discard-only", "100::/64"),
  special("dummy prefix", "100:0:0:1::/64"),
  special("IETF protocol assignments (Teredo, benchmarking, AMT, AS112, ORCHID)", "2001::/23"),
  special("documentation", "2001:db8::/32"),
  special("6to4", "2002::/16"),
  special("AS112 DNS sink", "2620:4f:8000::/48"),
  special("documentation", "3fff::/20"),
  special("SRv6 segment identifiers", "5f00::/16"),
  special("unique local", "fc00::/7"),
  special("link-local", "fe80::/10"),
  special("deprecated site-local", "fec0::/10"),
  special("multicast", "ff00::/8"),
];

const GLOBAL_UNICAST = special("global unicast", "2000::/3");

/**
 * Why an IP address is no public unicast address callbacks may go to ("in the loopback range
 * 127.0.0.0/8"), or null when it is one. The one test both the callbackUrl rule (an IP-literal host,
 * when the URL is accepted) and delivery (every address a connection would use, before it connects)
 * make. Anything that is not an IP address is refused.
 */
export function nonPublicReason(address: string): string | null {
  // A zone id (`fe80::1%eth0`) says which interface, not which address.
  const bare = address.split("%")[0];
  if (isIP(bare) === 0) return "not an IP address";
  const family = familyOf(bare);
  const found = (family === "ipv4" ? IPV4_RANGES : IPV6_RANGES).find((range) => range.block.check(bare, family));
  if (found) return `in the ${found.name} range ${found.cidr}`;
  if (family === "ipv6" && !GLOBAL_UNICAST.block.check(bare, family)) return "outside global unicast 2000::/3";
  return null;
}

export function isPublicUnicast(address: string): boolean {
  return nonPublicReason(address) === null;
}
