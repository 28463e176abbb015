import { ZeroHash } from "ethers";
import { describe, expect, it } from "vitest";

import { encodeBatch, encodeItem } from "./registry-batch";
import { toFixedCoordinate } from "./registry-coordinates";

const tokenId = (1n << 64n) | 2n;

describe("encodeItem", () => {
  it("packs a check-in as code, 16-byte tokenId and 8-byte orderTime", () => {
    const hex = encodeItem({ action: "checkedIn", tokenId, orderTime: 0x0102n }).slice(2);
    expect(hex).toBe("05" + "0000000000000001" + "0000000000000002" + "0000000000000102");
  });

  it("packs a sale with its ticket hash and wire price", () => {
    const hash = "0x" + "ab".repeat(32);
    const hex = encodeItem({ action: "sold", tokenId, ticketHash: hash, price: "1.5", orderTime: 3n }).slice(2);
    expect(hex).toHaveLength(2 * (1 + 16 + 32 + 16 + 8));
    expect(hex.slice(34, 98)).toBe("ab".repeat(32));
    expect(hex.slice(98, 130)).toBe("01" + "00".repeat(14) + "0f");
  });

  it("packs a claim with the checksum-normalised wallet", () => {
    const to = "0x52908400098527886e0f7030069857d2e4169ee7";
    const hex = encodeItem({ action: "claimed", tokenId, to }).slice(2);
    expect(hex.slice(34)).toBe(to.slice(2));
  });

  it("packs an event's cancellation as code and 8-byte eventIndex, nothing per ticket", () => {
    expect(encodeItem({ action: "cancelEvent", eventIndex: 0x0a0bn })).toBe("0x08" + "0000000000000a0b");
  });

  it("refuses a wallet with a wrong checksum", () => {
    expect(() => encodeItem({ action: "claimed", tokenId, to: "0x52908400098527886E0F7030069857D2E4169eE7" })).toThrow();
  });

  it("length-prefixes UTF-8 event strings and encodes negative coordinates in two's complement", () => {
    const hex = encodeItem({
      action: "updateEvent",
      eventIndex: 1n,
      details: {
        name: "é",
        currency: "EUR",
        shopUrl: "",
        imageUrl: "",
        latitude: -0.0000001,
        longitude: 0,
        startTime: 0n,
        endTime: 0n,
        organizer: "Ö",
        metadataHash: "0x" + "cd".repeat(32),
      },
    }).slice(2);
    expect(hex.slice(18, 26)).toBe("ffffffff");
    expect(hex.slice(66)).toBe("0003" + "455552" + "0002" + "c3a9" + "0000" + "0000" + "0002" + "c396" + "cd".repeat(32));
  });

  it("ends event details in their 32-byte metadata hash, zero when the event has none", () => {
    const details = { name: "", currency: "", shopUrl: "", imageUrl: "", latitude: 0, longitude: 0, startTime: 0n, endTime: 0n, organizer: "" };
    const hex = encodeItem({ action: "updateEvent", eventIndex: 1n, details: { ...details, metadataHash: ZeroHash } }).slice(2);
    expect(hex).toHaveLength(2 * (1 + 8 + 24 + 5 * 2 + 32));
    expect(hex.slice(-64)).toBe("00".repeat(32));
    expect(() => encodeItem({ action: "updateEvent", eventIndex: 1n, details: { ...details, metadataHash: "0x01" } })).toThrow(RangeError);
  });

  it("packs a ticket's metadata update as code, 16-byte tokenId and its 32-byte hash", () => {
    const hash = "0x" + "ef".repeat(32);
    expect(encodeItem({ action: "updateTicket", tokenId, metadataHash: hash })).toBe("0x09" + "0000000000000001" + "0000000000000002" + "ef".repeat(32));
    expect(() => encodeItem({ action: "updateTicket", tokenId, metadataHash: "0x" + "ef".repeat(31) })).toThrow(RangeError);
  });

  it("packs a sale with its metadata as the sale's fields under code 0x0A, then the hash", () => {
    const sale = { tokenId, ticketHash: "0x" + "ab".repeat(32), price: "1.5", orderTime: 3n };
    const hash = "0x" + "ef".repeat(32);
    const hex = encodeItem({ action: "soldWithMetadata", ...sale, metadataHash: hash }).slice(2);
    expect(hex).toBe("0a" + encodeItem({ action: "sold", ...sale }).slice(4) + "ef".repeat(32));
  });

  it("refuses values that do not fit their field", () => {
    expect(() => encodeItem({ action: "checkedIn", tokenId: 1n << 128n, orderTime: 0n })).toThrow(RangeError);
    expect(() => encodeItem({ action: "checkedIn", tokenId, orderTime: 1n << 64n })).toThrow(RangeError);
  });
});

describe("encodeBatch", () => {
  it("concatenates items in order", () => {
    const first = { action: "checkedIn", tokenId, orderTime: 1n } as const;
    const second = { action: "invalidated", tokenId, orderTime: 2n } as const;
    const batch = encodeBatch([first, second]);
    expect(batch.slice(2, 4)).toBe("05");
    expect(batch.slice(52, 54)).toBe("06");
    expect((batch.length - 2) / 2).toBe(50);
  });
});

describe("toFixedCoordinate", () => {
  it("rounds to 7 decimals symmetrically", () => {
    expect(toFixedCoordinate(52.3731, 90)).toBe(523_731_000);
    expect(toFixedCoordinate(-52.37310005, 90)).toBe(-523_731_001);
    expect(toFixedCoordinate(180, 180)).toBe(1_800_000_000);
  });

  it("refuses out-of-range and non-finite values", () => {
    expect(() => toFixedCoordinate(90.0000001, 90)).toThrow(RangeError);
    expect(() => toFixedCoordinate(Number.NaN, 180)).toThrow(RangeError);
  });
});
