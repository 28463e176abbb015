import { describe, expect, it } from "vitest";

import { clientAddressOfRequest, clientKeyOf, clientKeyOfRequest } from "./client-key";

describe("clientKeyOf", () => {
  it("keys an IPv4 address as itself", () => {
    expect(clientKeyOf("203.0.113.7")).toBe("203.0.113.7");
    expect(clientKeyOf("203.0.113.8")).toBe("203.0.113.8");
  });

  it("keys an IPv4-mapped IPv6 address as the IPv4 address it maps, in either notation", () => {
    expect(clientKeyOf("::ffff:203.0.113.7")).toBe("203.0.113.7");
    expect(clientKeyOf("::ffff:cb00:7107")).toBe("203.0.113.7");
    expect(clientKeyOf("::FFFF:203.0.113.7")).toBe("203.0.113.7");
  });

  it("keys every address of one IPv6 /64 alike, however it is written", () => {
    const keys = [
      "2001:db8:1:2::1",
      "2001:db8:1:2::ffff",
      "2001:db8:1:2:ffff:ffff:ffff:ffff",
      "2001:0DB8:0001:0002:0000:0000:0000:0042",
      "2001:db8:1:2:a:b:c:d",
    ].map(clientKeyOf);
    expect(new Set(keys)).toEqual(new Set(["2001:db8:1:2::/64"]));
  });

  it("keys neighbouring /64s apart", () => {
    expect(clientKeyOf("2001:db8:1:3::1")).toBe("2001:db8:1:3::/64");
    expect(clientKeyOf("2001:db8:1:1:ffff::1")).toBe("2001:db8:1:1::/64");
    expect(clientKeyOf("::1")).toBe("::/64");
  });

  it("keys a link-local address with a zone by its /64", () => {
    expect(clientKeyOf("fe80::1%eth0")).toBe("fe80::/64");
  });

  it("keys what is no address as unknown", () => {
    for (const address of [undefined, "", "localhost", "203.0.113", "2001:db8::1::2"]) expect(clientKeyOf(address)).toBe("unknown");
  });
});

describe("clientKeyOfRequest", () => {
  it("reads Express's client IP, else the socket's peer", () => {
    const request = (ip: string | undefined, remoteAddress: string | undefined) => ({ ip, socket: { remoteAddress } }) as never;
    expect(clientKeyOfRequest(request("2001:db8::7", "::1"))).toBe("2001:db8::/64");
    expect(clientKeyOfRequest(request(undefined, "::ffff:127.0.0.1"))).toBe("127.0.0.1");
    expect(clientKeyOfRequest(request(undefined, undefined))).toBe("unknown");
  });
});

describe("clientAddressOfRequest", () => {
  const request = (ip: string | undefined, remoteAddress?: string) => ({ ip, socket: { remoteAddress } }) as never;

  it("reads the address Express gives (behind TRUST_PROXY, the forwarded one), else the socket's peer", () => {
    expect(clientAddressOfRequest(request("203.0.113.7", "127.0.0.1"))).toBe("203.0.113.7");
    expect(clientAddressOfRequest(request(undefined, "198.51.100.1"))).toBe("198.51.100.1");
  });

  it("reads an IPv4-mapped IPv6 address as IPv4, and keeps a whole IPv6 address", () => {
    expect(clientAddressOfRequest(request("::ffff:203.0.113.7"))).toBe("203.0.113.7");
    expect(clientAddressOfRequest(request("2001:db8:1:2::42"))).toBe("2001:db8:1:2::42");
  });

  it("has none for what is not an address", () => {
    expect(clientAddressOfRequest(request(undefined))).toBeUndefined();
    expect(clientAddressOfRequest(request("unknown"))).toBeUndefined();
  });
});
