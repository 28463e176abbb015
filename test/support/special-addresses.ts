/**
 * The special-purpose address ranges callbacks are never sent to, written out by hand from the IANA
 * IPv4 and IPv6 Special-Purpose Address Registries (not from the code's own list), with sample
 * addresses inside each range (its first and last address among them) and just outside it where
 * the neighbour is a public address. The callbackUrl rule, the shared address test and delivery all
 * run this table.
 */
export interface SpecialRangeCase {
  range: string;
  /** Addresses in the range: refused. */
  inside: string[];
  /** Addresses just outside it that are public: accepted. */
  outside: string[];
}

export const SPECIAL_RANGES: readonly SpecialRangeCase[] = [
  { range: "0.0.0.0/8 this network", inside: ["0.0.0.0", "0.1.2.3", "0.255.255.255"], outside: ["1.0.0.0"] },
  { range: "10.0.0.0/8 private", inside: ["10.0.0.0", "10.0.0.1", "10.255.255.255"], outside: ["9.255.255.255", "11.0.0.0"] },
  { range: "100.64.0.0/10 carrier-grade NAT", inside: ["100.64.0.0", "100.127.255.255"], outside: ["100.63.255.255", "100.128.0.0"] },
  { range: "127.0.0.0/8 loopback", inside: ["127.0.0.0", "127.0.0.1", "127.255.255.255"], outside: ["126.255.255.255", "128.0.0.0"] },
  { range: "169.254.0.0/16 link-local", inside: ["169.254.0.0", "169.254.169.254", "169.254.255.255"], outside: ["169.253.255.255", "169.255.0.0"] },
  { range: "172.16.0.0/12 private", inside: ["172.16.0.0", "172.31.255.255"], outside: ["172.15.255.255", "172.32.0.0"] },
  {
    range: "192.0.0.0/24 IETF protocol assignments",
    inside: ["192.0.0.0", "192.0.0.9", "192.0.0.170", "192.0.0.255"],
    outside: ["191.255.255.255", "192.0.1.0"],
  },
  { range: "192.0.2.0/24 documentation", inside: ["192.0.2.0", "192.0.2.255"], outside: ["192.0.1.255", "192.0.3.0"] },
  { range: "192.31.196.0/24 AS112", inside: ["192.31.196.0", "192.31.196.255"], outside: ["192.31.195.255", "192.31.197.0"] },
  { range: "192.52.193.0/24 AMT", inside: ["192.52.193.0", "192.52.193.255"], outside: ["192.52.192.255", "192.52.194.0"] },
  { range: "192.88.99.0/24 6to4 relay anycast", inside: ["192.88.99.0", "192.88.99.255"], outside: ["192.88.98.255", "192.88.100.0"] },
  { range: "192.168.0.0/16 private", inside: ["192.168.0.0", "192.168.1.1", "192.168.255.255"], outside: ["192.167.255.255", "192.169.0.0"] },
  { range: "192.175.48.0/24 AS112", inside: ["192.175.48.0", "192.175.48.255"], outside: ["192.175.47.255", "192.175.49.0"] },
  { range: "198.18.0.0/15 benchmarking", inside: ["198.18.0.0", "198.19.255.255"], outside: ["198.17.255.255", "198.20.0.0"] },
  { range: "198.51.100.0/24 documentation", inside: ["198.51.100.0", "198.51.100.255"], outside: ["198.51.99.255", "198.51.101.0"] },
  { range: "203.0.113.0/24 documentation", inside: ["203.0.113.0", "203.0.113.255"], outside: ["203.0.112.255", "203.0.114.0"] },
  { range: "224.0.0.0/4 multicast", inside: ["224.0.0.0", "224.0.0.1", "239.255.255.255"], outside: ["223.255.255.255"] },
  { range: "240.0.0.0/4 reserved", inside: ["240.0.0.0", "240.0.0.1", "255.255.255.254"], outside: [] },
  { range: "255.255.255.255/32 limited broadcast", inside: ["255.255.255.255"], outside: [] },

  { range: "::/128 unspecified", inside: ["::"], outside: [] },
  { range: "::1/128 loopback", inside: ["::1"], outside: [] },
  {
    range: "::/96 IPv4-compatible",
    inside: ["::127.0.0.1", "::7f00:1", "::8.8.8.8", "::808:808", "::169.254.169.254", "::a9fe:a9fe", "::255.255.255.255", "::ffff:ffff"],
    outside: [],
  },
  {
    range: "::ffff:0:0/96 IPv4-mapped",
    inside: ["::ffff:0.0.0.0", "::ffff:127.0.0.1", "::ffff:169.254.169.254", "::ffff:8.8.8.8", "::ffff:255.255.255.255"],
    outside: [],
  },
  { range: "::ffff:0:0:0/96 IPv4-translated", inside: ["::ffff:0:127.0.0.1", "::ffff:0:8.8.8.8"], outside: [] },
  { range: "64:ff9b::/96 NAT64", inside: ["64:ff9b::", "64:ff9b::7f00:1", "64:ff9b::8.8.8.8", "64:ff9b::ffff:ffff"], outside: [] },
  { range: "64:ff9b:1::/48 local-use NAT64", inside: ["64:ff9b:1::", "64:ff9b:1::a00:1", "64:ff9b:1:ffff:ffff:ffff:ffff:ffff"], outside: [] },
  { range: "100::/64 discard-only", inside: ["100::", "100::ffff:ffff:ffff:ffff"], outside: [] },
  { range: "100:0:0:1::/64 dummy prefix", inside: ["100:0:0:1::", "100:0:0:1:ffff:ffff:ffff:ffff"], outside: [] },
  {
    range: "2001::/23 IETF protocol assignments",
    inside: [
      "2001::",
      "2001:0:4136:e378:8000:63bf:3fff:fdd2", // Teredo
      "2001:1::1",
      "2001:2::1", // benchmarking
      "2001:3::1", // AMT
      "2001:4:112::1", // AS112
      "2001:20::1", // ORCHIDv2
      "2001:30::1", // drone remote ID
      "2001:1ff:ffff:ffff:ffff:ffff:ffff:ffff",
    ],
    outside: ["2000:ffff:ffff:ffff:ffff:ffff:ffff:ffff", "2001:200::"],
  },
  {
    range: "2001:db8::/32 documentation",
    inside: ["2001:db8::", "2001:db8::1", "2001:db8:ffff:ffff:ffff:ffff:ffff:ffff"],
    outside: ["2001:db7:ffff:ffff:ffff:ffff:ffff:ffff", "2001:db9::"],
  },
  {
    range: "2002::/16 6to4",
    inside: ["2002::", "2002:7f00:1::", "2002:808:808::1", "2002:ffff:ffff:ffff:ffff:ffff:ffff:ffff"],
    outside: ["2001:ffff:ffff:ffff:ffff:ffff:ffff:ffff", "2003::"],
  },
  {
    range: "2620:4f:8000::/48 AS112",
    inside: ["2620:4f:8000::", "2620:4f:8000:ffff:ffff:ffff:ffff:ffff"],
    outside: ["2620:4f:7fff:ffff:ffff:ffff:ffff:ffff", "2620:4f:8001::"],
  },
  {
    range: "3fff::/20 documentation",
    inside: ["3fff::", "3fff:fff:ffff:ffff:ffff:ffff:ffff:ffff"],
    outside: ["3ffe:ffff:ffff:ffff:ffff:ffff:ffff:ffff", "3fff:1000::"],
  },
  { range: "5f00::/16 SRv6 segment identifiers", inside: ["5f00::", "5f00::1", "5f00:ffff:ffff:ffff:ffff:ffff:ffff:ffff"], outside: [] },
  { range: "fc00::/7 unique local", inside: ["fc00::", "fd00:ec2::254", "fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff"], outside: [] },
  { range: "fe80::/10 link-local", inside: ["fe80::", "fe80::1", "febf:ffff:ffff:ffff:ffff:ffff:ffff:ffff"], outside: [] },
  { range: "fec0::/10 site-local", inside: ["fec0::", "fec0::1", "feff:ffff:ffff:ffff:ffff:ffff:ffff:ffff"], outside: [] },
  { range: "ff00::/8 multicast", inside: ["ff00::", "ff02::1", "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff"], outside: [] },
  {
    range: "outside global unicast 2000::/3",
    inside: ["::1:0:0", "1::", "1fff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", "4000::", "e000::"],
    outside: ["2000::", "3fff:ffff:ffff:ffff:ffff:ffff:ffff:ffff"],
  },
];

/** Public unicast addresses nowhere near a special range. */
export const PUBLIC_ADDRESSES: readonly string[] = ["8.8.8.8", "1.1.1.1", "93.184.216.34", "2606:4700:4700::1111", "2a00:1450:4001:82b::200e"];

/** Every refused sample, and every accepted one (the public neighbours and the public addresses). */
export const REFUSED_SAMPLES: readonly string[] = SPECIAL_RANGES.flatMap((range) => range.inside);
export const ACCEPTED_SAMPLES: readonly string[] = [...new Set([...SPECIAL_RANGES.flatMap((range) => range.outside), ...PUBLIC_ADDRESSES])];
