import { AbiCoder, sha256, toUtf8Bytes } from "ethers";
import { describe, expect, it } from "vitest";

import { eventKeyOf, isTicketTokenId, splitTokenId, ticketHashOf, ticketeerKeyOf, tokenIdOf } from "./registry-ids";

describe("tokenIdOf", () => {
  it("packs the event index above the serial", () => {
    expect(tokenIdOf(1n, 1n)).toBe(18446744073709551617n);
    expect(splitTokenId(tokenIdOf(123n, 456n))).toEqual({ eventIndex: 123n, serial: 456n });
  });

  it("refuses zero and values beyond 64 bits", () => {
    expect(() => tokenIdOf(0n, 1n)).toThrow(RangeError);
    expect(() => tokenIdOf(1n, 0n)).toThrow(RangeError);
    expect(() => tokenIdOf(1n << 64n, 1n)).toThrow(RangeError);
  });
});

describe("on-chain keys", () => {
  it("hashes the ticket id with SHA-256 of its UTF-8 bytes", () => {
    // sha256("abc") from FIPS 180-2.
    expect(ticketHashOf("abc")).toBe("0xba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  });

  it("keys an event by ticketeer and event id so equal event ids of two ticketeers differ", () => {
    const expected = sha256(AbiCoder.defaultAbiCoder().encode(["string", "string"], ["org-1", "event-1"]));
    expect(eventKeyOf("org-1", "event-1")).toBe(expected);
    expect(eventKeyOf("org-2", "event-1")).not.toBe(expected);
    expect(eventKeyOf("org-1e", "vent-1")).not.toBe(expected);
    expect(ticketeerKeyOf("org-1")).toBe(sha256(toUtf8Bytes("org-1")));
  });
});

describe("isTicketTokenId", () => {
  it.each([
    [(1n << 64n) | 1n, true],
    [(((1n << 40n) - 1n) << 64n) | ((1n << 64n) - 1n), true],
    [1n, false],
    [1n << 64n, false],
    [((1n << 40n) << 64n) | 1n, false],
  ])("%s: %s", (tokenId, expected) => {
    expect(isTicketTokenId(tokenId)).toBe(expected);
  });
});
