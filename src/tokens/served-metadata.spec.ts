import canonicalize from "canonicalize";
import { keccak256, toUtf8Bytes } from "ethers";
import { describe, expect, it } from "vitest";

import { servedMetadata } from "./served-metadata";

describe("servedMetadata", () => {
  it("states the document it hashed, and a hash anyone recomputes from it with JCS and keccak-256", () => {
    const served = servedMetadata({ uri: "https://img.example/12.png", name: null });
    expect(served.metadata_document).toEqual({ uri: "https://img.example/12.png" });
    expect(served.metadata_hash).toBe(keccak256(toUtf8Bytes(canonicalize(served.metadata_document)!)));
    expect(served.metadata_hash).toBe(keccak256(toUtf8Bytes('{"uri":"https://img.example/12.png"}')));
  });

  it("states the hash of the empty document for a ticket without metadata of its own", () => {
    expect(servedMetadata({ uri: null })).toEqual({ metadata_document: {}, metadata_hash: keccak256(toUtf8Bytes("{}")) });
  });
});

describe("servedMetadata of a URI the token never shows", () => {
  it("leaves it out of the document and the hash, as the JSON leaves it out", () => {
    const served = servedMetadata({ uri: "javascript:alert(1)", animationUrl: "http://video.example/a.mp4", name: "Seat 1" });
    expect(served).toEqual(servedMetadata({ name: "Seat 1" }));
    expect(JSON.stringify(served)).not.toContain("javascript:");
  });
});
