import { readFileSync } from "node:fs";
import { join } from "node:path";

import { describe, expect, it } from "vitest";

import { ACTION_KINDS, ACTIONS, BATCH_ITEM_CODE, ENDPOINT, BATCH_ITEM_OF_KIND, KIND_OF_BATCH_ITEM, KIND_OF_STREAM_ACTION } from "./actions";

describe("the ACTIONS table", () => {
  it("gives every batch item one code, as the contract's BatchReader numbers them from 1", () => {
    const codes = Object.values(BATCH_ITEM_CODE).sort((a, b) => a - b);
    expect(codes).toEqual(codes.map((_, index) => index + 1));
  });

  it("sends each batched kind as one item and reads each item back as that kind", () => {
    for (const [kind, item] of Object.entries(BATCH_ITEM_OF_KIND)) expect(KIND_OF_BATCH_ITEM[item]).toBe(kind);
    expect(BATCH_ITEM_OF_KIND).toMatchObject({ newEvent: "registerEvent", scanned: "checkedIn", updateTicket: "updateTicket", sold: "sold" });
    expect(BATCH_ITEM_OF_KIND.transferred).toBeUndefined();
  });

  it("reads a sale with its metadata back as a sale: the ledger kind and the callbacks' action stay sold", () => {
    expect(KIND_OF_BATCH_ITEM.soldWithMetadata).toBe("sold");
    expect(BATCH_ITEM_CODE).toMatchObject({ updateTicket: 0x09, soldWithMetadata: 0x0a });
  });

  it("takes each stream name for one kind only", () => {
    const names = ACTION_KINDS.flatMap((kind) => [...ACTIONS[kind].stream]);
    expect(new Set(names).size).toBe(names.length);
    expect(KIND_OF_STREAM_ACTION).toMatchObject({ soldTicket: "sold", scannedTicket: "scanned", checkedInTicket: "scanned" });
  });

  it("names only endpoints the OpenAPI document has", () => {
    const document = JSON.parse(readFileSync(join(__dirname, "../../openapi.json"), "utf8")) as { paths: Record<string, Record<string, unknown>> };
    for (const kind of ACTION_KINDS)
      for (const endpoint of ACTIONS[kind].endpoints) {
        const [method, path] = endpoint.split(" ");
        expect(document.paths[path]?.[method.toLowerCase()], endpoint).toBeDefined();
      }
  });

  it("routes each endpoint by the last segment of its path, the requestedAs its actions record", () => {
    expect(ENDPOINT).toEqual({
      events: "events",
      sold: "sold",
      resold: "resold",
      scanned: "scanned",
      checkedin: "checkedin",
      invalidated: "invalidated",
      cancel: "cancel",
    });
  });
});
