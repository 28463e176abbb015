import { keccak256, toUtf8Bytes, ZeroHash } from "ethers";
import { describe, expect, it } from "vitest";

import { canonicalJson, canonicalTicketDocument, eventMetadataHash, hasTicketMetadata, ticketMetadataHash } from "./metadata-hash";

describe("canonical ticket metadata", () => {
  it("sorts members, drops unset fields and keeps the attributes' order", () => {
    const document = canonicalTicketDocument({
      uri: "https://img.example/1.png",
      name: "Seat 12",
      description: null,
      attributes: [
        { traitType: "Section", value: "B" },
        { value: 12, traitType: "Seat", displayType: "number" },
      ],
    });
    expect(canonicalJson(document)).toBe(
      '{"attributes":[{"traitType":"Section","value":"B"},{"displayType":"number","traitType":"Seat","value":12}],"name":"Seat 12","uri":"https://img.example/1.png"}',
    );
  });

  it("hashes the UTF-8 bytes of the canonical JSON with keccak-256", () => {
    const metadata = { name: "Café 1.50", attributes: [{ traitType: "Price", value: 1.5 }] };
    expect(ticketMetadataHash(metadata)).toBe(keccak256(toUtf8Bytes('{"attributes":[{"traitType":"Price","value":1.5}],"name":"Café 1.50"}')));
  });

  it("reads no attributes and an empty list alike", () => {
    expect(ticketMetadataHash({ uri: "u", attributes: [] })).toBe(ticketMetadataHash({ uri: "u" }));
    expect(hasTicketMetadata({ attributes: [] })).toBe(false);
    expect(hasTicketMetadata({ name: "x" })).toBe(true);
  });
});

describe("eventMetadataHash", () => {
  it("is the zero hash for an event without metadata", () => {
    expect(eventMetadataHash({})).toBe(ZeroHash);
    expect(eventMetadataHash({ description: null })).toBe(ZeroHash);
  });

  it("hashes the description and ticket image", () => {
    expect(eventMetadataHash({ ticketImageUrl: "https://i", description: "d" })).toBe(
      keccak256(toUtf8Bytes('{"description":"d","ticketImageUrl":"https://i"}')),
    );
  });
});
