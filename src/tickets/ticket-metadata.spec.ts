import { describe, expect, it } from "vitest";

import { eventMetadataHash, hasTicketMetadata, ticketMetadataHash } from "../registry";
import { eventMetadataOf } from "../events/event-metadata";
import { ticketMetadataOf } from "./ticket-metadata";

const BLANK = { uri: "", name: "", description: "", animationUrl: "", attributes: [] };

describe("ticketMetadataOf", () => {
  it("reads blank fields and no attributes as unset: a ticket without metadata has none", () => {
    expect(ticketMetadataOf(BLANK)).toEqual({ uri: null, name: null, description: null, animationUrl: null, attributes: null });
    expect(hasTicketMetadata(ticketMetadataOf(BLANK))).toBe(false);
  });

  it("gives every field the hash covers: a change of any one changes the hash", () => {
    const full = {
      uri: "ipfs://bafy/1.png",
      name: "Seat 12A",
      description: "Front row",
      animationUrl: "ipfs://bafy/1.mp4",
      attributes: [{ traitType: "Seat", value: "12A" }],
    };
    const hash = ticketMetadataHash(ticketMetadataOf(full));
    for (const field of Object.keys(full) as (keyof typeof full)[]) {
      expect(ticketMetadataHash(ticketMetadataOf({ ...full, [field]: BLANK[field] })), field).not.toBe(hash);
    }
  });
});

describe("eventMetadataOf", () => {
  it("gives the description and ticketImageUrl, blank as unset", () => {
    expect(eventMetadataOf({ description: "", ticketImageUrl: "" })).toEqual({ description: null, ticketImageUrl: null });
    expect(eventMetadataHash(eventMetadataOf({ description: "", ticketImageUrl: "" }))).toMatch(/^0x0{64}$/);
    expect(eventMetadataOf({ description: "D", ticketImageUrl: "ar://tx/1.png" })).toEqual({ description: "D", ticketImageUrl: "ar://tx/1.png" });
  });
});
