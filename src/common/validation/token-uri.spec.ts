import { describe, expect, it } from "vitest";

import { isTokenUri, tokenUriProblem as sut } from "./token-uri";

const RULE = "must be an https, ipfs:// or ar:// URI of at most 255 characters, or blank";

describe("tokenUriProblem", () => {
  it.each([
    "https://img.example.com/ticket/1.png",
    "https://img.example.com/ticket/1.png?size=600#top",
    "HTTPS://img.example.com/1.png",
    "https://localhost:8443/1.png",
    "https://bücher.example/1.png",
    "ipfs://bafybeigdyrzt5sfp7udm7hu76uh7y26nf3efuylqabf3oclgtqy55fbzdi/1.json",
    "ipfs://QmYwAPJzv5CZsnA625s3Xf2nemtYgPpHdWEz79ojWnPbdG",
    "IPFS://bafy/1.json",
    "ar://Q2Wl1bnTgDRi0A9Q-aX5Oj1Yw0fFfeRZ4j4RbkG3wT0",
    "ar://Q2Wl1bnTgDRi0A9Q-aX5Oj1Yw0fFfeRZ4j4RbkG3wT0/metadata.json",
  ])("takes %s", (uri) => {
    expect(sut(uri)).toBeNull();
    expect(isTokenUri(uri)).toBe(true);
  });

  it("takes 255 characters and refuses 256", () => {
    const prefix = "ipfs://";
    expect(sut(prefix + "a".repeat(255 - prefix.length))).toBeNull();
    expect(sut(prefix + "a".repeat(256 - prefix.length))).toBe(RULE);
    expect(sut(prefix + "𝄞".repeat(255 - prefix.length))).toBeNull();
  });

  it.each([
    ["javascript:", "javascript:alert(1)"],
    ["javascript: in capitals", "JAVASCRIPT:alert(1)"],
    ["javascript: shaped like a URL", "javascript://img.example.com/%0Aalert(1)"],
    ["data:", "data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg=="],
    ["data: of an image", "data:image/png;base64,iVBORw0KGgo="],
    ["vbscript:", "vbscript:msgbox(1)"],
    ["http:", "http://img.example.com/ticket.png"],
    ["file:", "file:///etc/passwd"],
    ["ftp:", "ftp://img.example.com/ticket.png"],
    ["blob:", "blob:https://img.example.com/0b9e2c1a"],
    ["ipns:", "ipns://k51qzi5uqu5dlvj2baxnqndepeb86cbk3ng7n3i46uzyxzyqj2xjonzllnv0v8"],
  ])("refuses %s, naming the scheme and why", (_case, uri) => {
    const scheme = /^([^:]+):/.exec(uri)![1].toLowerCase();
    expect(sut(uri)).toBe(
      `${RULE}: "${scheme}:" is refused, because wallets show the uri as the token's image and another scheme could run script, ` +
        "show a document of the sender's choosing or load in the clear",
    );
  });

  it.each([
    ["no scheme", "bafybeigdyrzt5sfp7udm7hu76uh7y26nf3efuylqabf3oclgtqy55fbzdi/1.json", "it has no scheme"],
    ["a protocol-relative URL", "//img.example.com/1.png", "it has no scheme"],
    ["a leading space", " ipfs://bafy/1.json", "it has no scheme"],
    ["a scheme starting with a digit", "1pfs://x", "it has no scheme"],
    ["ipfs: without //", "ipfs:bafybeigdyrzt5sfp7udm7hu76uh7y26nf3efuylqabf3oclgtqy55fbzdi", "write it ipfs://<content id>, then an optional path"],
    ["ipfs:// and nothing else", "ipfs://", "write it ipfs://<content id>, then an optional path"],
    ["ar:/ and a path", "ar:/Q2Wl1bnTgDRi0A9Q", "write it ar://<content id>, then an optional path"],
    ["ar:// without an id", "ar:///metadata.json", "write it ar://<content id>, then an optional path"],
    ["https:// without a host", "https://", "not a well-formed https URL with a host"],
    ["https: without //", "https:img.example.com/1.png", "not a well-formed https URL with a host"],
  ])("refuses %s", (_case, uri, why) => {
    expect(sut(uri)).toBe(`${RULE}: ${why}`);
  });

  it.each([
    ["a space", "ipfs://bafy/ticket 1.json"],
    ["a tab", "ipfs://bafy/\t1.json"],
    ["a newline", "https://img.example.com/1.png\n"],
    ["a quote that would end an HTML attribute", 'https://img.example.com/"onerror="alert(1)'],
    ["markup", "https://img.example.com/<script>"],
    ["a backslash", "https://img.example.com\\@evil.example/1.png"],
    ["a bidirectional override", "ipfs://bafy/\u202Egnp.exe"],
    ["a zero-width space", "ipfs://ba\u200Bfy/1.json"],
    ["a C1 control", "ar://Q2Wl\u0085"],
  ])("refuses %s", (_case, uri) => {
    expect(sut(uri)).toBe(`${RULE}: it must not contain spaces, control, bidirectional or zero-width characters, nor any of " < > \\ ^ \` { | }`);
  });

  it("refuses blank and what is not a string: a blank uri is the field's default, allowed by the field, not by the rule", () => {
    for (const value of ["", undefined, null, 1, { href: "https://img.example.com" }]) expect(sut(value)).toBe(RULE);
  });
});
