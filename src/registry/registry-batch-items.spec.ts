import { ZeroHash } from "ethers";
import { describe, expect, it } from "vitest";

import { encodeBatch, type RegistryWireItem } from "./registry-batch";
import { batchItemSubjects } from "./registry-batch-items";

const details = {
  name: "Concert ✓",
  currency: "EUR",
  shopUrl: "https://shop.example.com",
  imageUrl: "",
  latitude: 52.3731,
  longitude: -4.8922,
  startTime: 1_900_000_000n,
  endTime: 1_900_010_800n,
  organizer: "Org",
  metadataHash: ZeroHash,
};
const key = "0x" + "ab".repeat(32);

describe("batchItemSubjects", () => {
  it("reads back every item's action and subject of an encoded batch, event details of any length included", () => {
    const items: RegistryWireItem[] = [
      { action: "registerEvent", eventIndex: 7n, eventKey: key, ticketeer: key, details },
      { action: "sold", tokenId: (7n << 64n) | 1n, ticketHash: key, price: "12.50", orderTime: 5n },
      { action: "resold", tokenId: (7n << 64n) | 1n, price: "13", orderTime: 6n },
      { action: "updateEvent", eventIndex: 7n, details: { ...details, imageUrl: "https://img.example.com/x.png" } },
      { action: "checkedIn", tokenId: (7n << 64n) | 1n, orderTime: 7n },
      { action: "invalidated", tokenId: (7n << 64n) | 2n, orderTime: 8n },
      { action: "claimed", tokenId: (7n << 64n) | 1n, to: "0x52908400098527886E0F7030069857D2E4169EE7" },
      { action: "cancelEvent", eventIndex: 7n },
      { action: "checkedIn", tokenId: (7n << 64n) | 3n, orderTime: 9n },
      { action: "updateTicket", tokenId: (7n << 64n) | 2n, metadataHash: key },
      { action: "soldWithMetadata", tokenId: (7n << 64n) | 4n, ticketHash: key, price: "1", orderTime: 10n, metadataHash: key },
      { action: "updateEvent", eventIndex: 7n, details: { ...details, metadataHash: key } },
    ];
    expect(batchItemSubjects(encodeBatch(items))).toEqual(
      items.map((item) => ({ action: item.action, subject: "eventIndex" in item ? item.eventIndex : item.tokenId })),
    );
  });

  it("refuses bytes that are not a batch", () => {
    expect(() => batchItemSubjects("0x0b")).toThrow(/unknown action code 11/);
    expect(() => batchItemSubjects("0x0300")).toThrow(/ends inside an item/);
  });
});
