import { ZeroHash } from "ethers";
import { describe, expect, it } from "vitest";

import type { RegistryBatchItem } from "./registry-batch";
import { registryItemFromJson, registryItemToJson } from "./registry-item-json";

const items: RegistryBatchItem[] = [
  { action: "sold", tokenId: (1n << 64n) | 7n, ticketHash: "0x" + "ab".repeat(32), price: "12.50", orderTime: 18446744073709551615n },
  { action: "claimed", tokenId: 5n, to: "0x52908400098527886E0F7030069857D2E4169EE7" },
  {
    action: "registerEvent",
    eventIndex: 3n,
    eventKey: "0x" + "01".repeat(32),
    ticketeer: "0x" + "02".repeat(32),
    details: {
      name: "n",
      currency: "EUR",
      shopUrl: "",
      imageUrl: "",
      latitude: 1.5,
      longitude: -2,
      startTime: 1n,
      endTime: 2n,
      organizer: "o",
      metadataHash: ZeroHash,
    },
  },
];

describe("registry item JSON", () => {
  it.each(items)("round-trips $action with its bigints as decimal strings", (item) => {
    const json = registryItemToJson(item);
    expect(json).not.toMatch(/\d+n/);
    expect(registryItemFromJson(JSON.parse(json))).toEqual(item);
  });

  it("reads an event item stored before events carried their organizer as one with a blank organizer", () => {
    const stored = JSON.parse(registryItemToJson(items[2]));
    delete stored.details.organizer;
    expect(registryItemFromJson(stored)).toEqual({ ...items[2], details: { ...(items[2] as { details: object }).details, organizer: "" } });
  });

  it("reads an event item stored before events carried their metadata hash as one with a zero hash", () => {
    const item = { ...items[2], details: { ...(items[2] as { details: object }).details, metadataHash: "0x" + "ab".repeat(32) } } as RegistryBatchItem;
    const stored = JSON.parse(registryItemToJson(item));
    delete stored.details.metadataHash;
    expect(registryItemFromJson(stored)).toEqual({ ...item, details: { ...(item as { details: object }).details, metadataHash: ZeroHash } });
  });
});
