import { afterEach, describe, expect, it } from "vitest";

import { SPECIAL_RANGES } from "../../../test/support/special-addresses";
import { allowPrivateCallbackHosts, callbackUrlProblem } from "./callback-target";

afterEach(() => allowPrivateCallbackHosts([]));

describe("callbackUrlProblem", () => {
  it.each([
    "https://integrator.example.com/callbacks",
    "https://8.8.8.8/cb",
    "https://[2606:4700:4700::1111]:8443/cb",
    "https://integrator.example.com/cb?token=a%40b",
  ])("takes %s", (url) => {
    expect(callbackUrlProblem(url)).toBeNull();
  });

  it.each([
    ["https://127.0.0.1/", "loopback"],
    ["https://2130706433/", "loopback"], // the URL parser reads it as 127.0.0.1, as a connection would
    ["https://0x7f.1/", "loopback"],
    ["https://10.0.0.1/", "private"],
    ["https://172.16.0.1/", "private"],
    ["https://169.254.169.254/", "link-local"],
    ["https://100.64.0.1/", "carrier-grade NAT"],
    ["https://239.1.1.1/", "multicast"],
    ["https://255.255.255.255/", "broadcast"],
    ["https://[::]/", "unspecified"],
    ["https://[::ffff:127.0.0.1]/", "IPv4-mapped"],
    ["https://[fd00:ec2::254]/", "unique local"],
    ["https://[ff02::1]/", "multicast"],
    ["https://[2001:db8::1]/", "documentation"],
    ["https://[::127.0.0.1]/", "(::7f00:1 is in the IPv4-compatible (deprecated) range ::/96)"],
    ["https://[fe80::1%25eth0]/", "zone id"],
    ["https://[fe80::1%eth0]/", "zone id"],
    ["https://a:b@integrator.example.com/", "user information"],
    ["https://a@integrator.example.com/", "user information"],
    ["https://localhost/", "localhost"],
    ["https://api.localhost/", "localhost"],
  ])("refuses %s (%s)", (url, why) => {
    expect(callbackUrlProblem(url)).toContain(why);
  });

  /** An IP literal as a URL host: IPv6 in brackets. */
  const urlOf = (address: string) => `https://${address.includes(":") ? `[${address}]` : address}:8443/callbacks`;

  describe.each(SPECIAL_RANGES)("the special-purpose range $range", ({ inside, outside }) => {
    it.each(inside)("refuses %s", (address) => {
      expect(callbackUrlProblem(urlOf(address))).toMatch(
        /^must not be an IP address that is not public unicast \(.+ is (in the .+ range |outside global unicast)/,
      );
    });
    if (outside.length > 0) {
      it.each(outside)("takes %s, just outside", (address) => {
        expect(callbackUrlProblem(urlOf(address))).toBeNull();
      });
    }
  });

  it("lets the hosts of CALLBACK_ALLOW_HOSTS be private, and nothing else", () => {
    allowPrivateCallbackHosts(["LOCALHOST", "10.0.0.1"]);
    expect(callbackUrlProblem("https://localhost:8443/cb")).toBeNull();
    expect(callbackUrlProblem("https://10.0.0.1/cb")).toBeNull();
    expect(callbackUrlProblem("https://10.0.0.2/cb")).toContain("private");
    // user information and zone ids are refused whatever the host
    expect(callbackUrlProblem("https://u:p@localhost/cb")).toContain("user information");
  });
});
