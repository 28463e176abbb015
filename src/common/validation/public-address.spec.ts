import ipaddr from "ipaddr.js";
import { describe, expect, it } from "vitest";

import { ACCEPTED_SAMPLES, PUBLIC_ADDRESSES, SPECIAL_RANGES } from "../../../test/support/special-addresses";
import { isPublicUnicast, nonPublicReason } from "./public-address";

describe("isPublicUnicast", () => {
  describe.each(SPECIAL_RANGES)("$range", ({ inside, outside }) => {
    it.each(inside)("refuses %s", (address) => {
      expect(isPublicUnicast(address)).toBe(false);
    });
    if (outside.length > 0) {
      it.each(outside)("takes %s, just outside", (address) => {
        expect(isPublicUnicast(address)).toBe(true);
      });
    }
  });

  it.each(PUBLIC_ADDRESSES)("takes the public address %s", (address) => {
    expect(isPublicUnicast(address)).toBe(true);
  });

  it("says which range refused an address", () => {
    expect(nonPublicReason("::127.0.0.1")).toBe("in the IPv4-compatible (deprecated) range ::/96");
    expect(nonPublicReason("169.254.169.254")).toBe("in the link-local (cloud metadata endpoints) range 169.254.0.0/16");
    expect(nonPublicReason("4000::1")).toBe("outside global unicast 2000::/3");
    expect(nonPublicReason("integrator.example.com")).toBe("not an IP address");
  });

  it("refuses every range ipaddr.js knows as special, as delivery's library does (its first and last address)", () => {
    type Cidr = [ipaddr.IPv4 | ipaddr.IPv6, number];
    const prototypes = [ipaddr.IPv4.prototype, ipaddr.IPv6.prototype] as unknown as { SpecialRanges: Record<string, Cidr | Cidr[]> }[];
    const cidrs = prototypes.flatMap(({ SpecialRanges }) =>
      Object.values(SpecialRanges).flatMap((entry) => (Array.isArray(entry[0]) ? (entry as Cidr[]) : [entry as Cidr])),
    );
    expect(cidrs.length).toBeGreaterThan(30);
    for (const [base, bits] of cidrs) {
      const cidr = `${base.toString()}/${bits}`;
      const family = base.kind() === "ipv4" ? ipaddr.IPv4 : ipaddr.IPv6;
      const edges = [family.networkAddressFromCIDR(cidr).toString(), family.broadcastAddressFromCIDR(cidr).toString()];
      for (const address of edges) expect(isPublicUnicast(address), `${address} (${cidr})`).toBe(false);
    }
    // And what this list accepts, ipaddr.js calls unicast: delivery's library lets it through too.
    for (const address of ACCEPTED_SAMPLES) expect(ipaddr.parse(address).range(), address).toBe("unicast");
  });
});
