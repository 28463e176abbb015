import { describe, expect, it } from "vitest";

import { isCurrencyCode, isWalletAddress, isWebUrl, MAX_TEXT_LENGTH } from "./field-rules";

/** An http(s) URL of exactly `length` characters. */
function urlOfLength(length: number, scheme = "https"): string {
  const prefix = `${scheme}://shop.example.com/`;
  return prefix + "a".repeat(length - prefix.length);
}

describe("isCurrencyCode", () => {
  it.each(["EUR", "USD", "JPY", "CHF"])("takes the ISO 4217 code %s", (code) => {
    expect(isCurrencyCode(code)).toBe(true);
  });

  it.each([["eur"], ["Eur"], ["EURO"], ["EU"], ["XYZ"], [""], [" EUR"], [978], [null], [undefined]])("refuses %j", (code) => {
    expect(isCurrencyCode(code)).toBe(false);
  });
});

describe("isWebUrl", () => {
  it.each(["https://shop.example.com/concert", "http://shop.example.com/concert?x=1#y", "https://localhost:8443/callbacks"])(
    "takes the http(s) URL %s",
    (url) => {
      expect(isWebUrl(url, false)).toBe(true);
    },
  );

  it("takes only https when told so", () => {
    expect(isWebUrl("https://integrator.example.com/callbacks", true)).toBe(true);
    expect(isWebUrl("http://integrator.example.com/callbacks", true)).toBe(false);
  });

  it("takes 255 characters and refuses 256", () => {
    expect(urlOfLength(MAX_TEXT_LENGTH)).toHaveLength(255);
    expect(isWebUrl(urlOfLength(255), false)).toBe(true);
    expect(isWebUrl(urlOfLength(255), true)).toBe(true);
    expect(isWebUrl(urlOfLength(256), false)).toBe(false);
    expect(isWebUrl(urlOfLength(256), true)).toBe(false);
  });

  it.each([
    ["no scheme", "shop.example.com/concert"],
    ["a protocol-relative URL", "//shop.example.com/concert"],
    ["javascript:", "javascript:alert(1)"],
    ["javascript: shaped like a URL", "javascript://shop.example.com/%0Aalert(1)"],
    ["ftp:", "ftp://shop.example.com/file"],
    ["data:", "data:text/html,<script>alert(1)</script>"],
    ["no host", "https://"],
    ["blank", ""],
    ["spaces", "https://shop.example.com/a b"],
  ])("refuses %s", (_case, url) => {
    expect(isWebUrl(url, false)).toBe(false);
    expect(isWebUrl(url, true)).toBe(false);
  });

  it("refuses what is not a string", () => {
    expect(isWebUrl(42, false)).toBe(false);
    expect(isWebUrl(null, false)).toBe(false);
    expect(isWebUrl({ href: "https://shop.example.com" }, false)).toBe(false);
  });
});

describe("isWalletAddress", () => {
  // EIP-55 test vectors.
  const checksummed = [
    "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed",
    "0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359",
    "0xdbF03B407c01E7cD3CBea99509d93f8DDDC8C6FB",
    "0x52908400098527886E0F7030069857D2E4169EE7",
  ];

  it.each(checksummed)("takes the EIP-55 address %s", (address) => {
    expect(isWalletAddress(address)).toBe(true);
  });

  it("takes an address in all lowercase or all uppercase, which carry no checksum", () => {
    expect(isWalletAddress(checksummed[0].toLowerCase())).toBe(true);
    expect(isWalletAddress("0x" + checksummed[0].slice(2).toUpperCase())).toBe(true);
  });

  it("refuses mixed case with a wrong checksum", () => {
    expect(isWalletAddress("0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAeD")).toBe(false);
    expect(isWalletAddress("0x5AAeb6053F3E94C9b9A09f33669435E7Ef1BeAed")).toBe(false);
  });

  it.each([
    ["19 bytes", "0x" + "ab".repeat(19)],
    ["21 bytes", "0x" + "ab".repeat(21)],
    ["no 0x", checksummed[0].slice(2)],
    ["a capital 0X", "0X" + checksummed[0].slice(2)],
    ["a non-hex digit", "0x" + "ab".repeat(19) + "ag"],
    ["surrounding spaces", ` ${checksummed[0]} `],
    ["an ENS name", "vitalik.eth"],
    ["the zero address, which the registry cannot transfer to", "0x" + "0".repeat(40)],
  ])("refuses %s", (_case, address) => {
    expect(isWalletAddress(address)).toBe(false);
  });

  it("refuses what is not a string", () => {
    expect(isWalletAddress(0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaedn)).toBe(false);
    expect(isWalletAddress(null)).toBe(false);
  });
});
