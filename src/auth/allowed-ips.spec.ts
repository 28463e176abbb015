import { describe, expect, it } from "vitest";

import { ipAllowed, MAX_ALLOWED_IP_RANGES, parseAllowedIps } from "./allowed-ips";

describe("parseAllowedIps", () => {
  it("reads addresses and CIDR ranges of both families, as PostgreSQL's cidr writes them", () => {
    expect(parseAllowedIps("203.0.113.0/24, 198.51.100.7,2001:DB8:0::/48 ,2001:db8::1,0.0.0.0/0")).toEqual({
      ranges: ["203.0.113.0/24", "198.51.100.7/32", "2001:db8::/48", "2001:db8::1/128", "0.0.0.0/0"],
    });
    expect(parseAllowedIps("10.0.0.0/8,10.0.0.0/8")).toEqual({ ranges: ["10.0.0.0/8"] });
  });

  it.each([
    ["", "must name at least one IP address or CIDR range"],
    [" , ", "must name at least one IP address or CIDR range"],
    ["10.0.0.0/8,,10.1.0.0/16", "has an empty entry (two commas in a row, or one at an end)"],
    ["10.0.0.0/8,", "has an empty entry (two commas in a row, or one at an end)"],
    ["10.0.0.0/33", '"10.0.0.0/33" has a prefix longer than 32 bits'],
    ["2001:db8::/129", '"2001:db8::/129" has a prefix longer than 128 bits'],
    ["10.0.0.1/8", '"10.0.0.1/8" has bits set after its /8 prefix: the range is 10.0.0.0/8'],
    ["2001:db8::1/32", '"2001:db8::1/32" has bits set after its /32 prefix: the range is 2001:db8::/32'],
    ["::ffff:10.0.0.0/104", '"::ffff:10.0.0.0/104" is an IPv4-mapped IPv6 range: write it as IPv4 (10.0.0.0)'],
  ])("refuses %j: it %s", (list, problem) => {
    expect(parseAllowedIps(list)).toEqual({ problem });
  });

  it.each(["10.0.0", "10.0.0.0/", "10.0.0.0/8/8", "10.0.0.0/+8", "10.0.0.0/ 8", "10.0.0.0/x", "example.com", "fe80::1%eth0", "010.0.0.1", "*"])(
    "refuses %j as no address or range",
    (entry) => {
      expect(parseAllowedIps(entry).problem).toBe(`"${entry}" is not an IP address or a CIDR range (such as 203.0.113.0/24 or 2001:db8::/48)`);
    },
  );

  it(`takes at most ${MAX_ALLOWED_IP_RANGES} ranges`, () => {
    const ranges = Array.from({ length: MAX_ALLOWED_IP_RANGES + 1 }, (_, index) => `10.0.${index}.0/24`);
    expect(parseAllowedIps(ranges.slice(0, -1).join(",")).ranges).toHaveLength(MAX_ALLOWED_IP_RANGES);
    expect(parseAllowedIps(ranges.join(",")).problem).toBe(`must name at most ${MAX_ALLOWED_IP_RANGES} ranges (got ${MAX_ALLOWED_IP_RANGES + 1})`);
  });
});

describe("ipAllowed", () => {
  const ranges = ["203.0.113.0/24", "198.51.100.7/32", "2001:db8:1::/48"];

  it("allows every address when the key names no ranges", () => {
    expect(ipAllowed(null, "192.0.2.1")).toBe(true);
    expect(ipAllowed(null, undefined)).toBe(true);
  });

  it("allows an address inside one of the ranges", () => {
    for (const address of ["203.0.113.0", "203.0.113.255", "198.51.100.7", "2001:db8:1::1", "2001:db8:1:ffff:ffff:ffff:ffff:ffff"]) {
      expect(ipAllowed(ranges, address), address).toBe(true);
    }
  });

  it("refuses an address outside them, of the other family, or none", () => {
    for (const address of ["203.0.114.1", "198.51.100.8", "2001:db8:2::1", "::ffff:203.0.113.7", "::", "not an address", undefined]) {
      expect(ipAllowed(ranges, address), String(address)).toBe(false);
    }
  });
});
