import { ZeroHash } from "ethers";
import { describe, expect, it } from "vitest";

import { stateOf, type TokenFacts } from "./chain/token-facts";
import { CHAIN_TRAIT_TYPES } from "../common/token-traits";
import type { LedgerMetadata } from "./ledger-metadata.store";
import { tokenMetadata } from "./token-metadata";

const TOKEN_ID = (3n << 64n) | 12n;
const PAGE = `https://registry.example.com/verify/tokens/${TOKEN_ID}`;
const NONE: LedgerMetadata = { ticket: {}, event: {} };
const withUri = (uri: string): LedgerMetadata => ({ ticket: { uri }, event: {} });

function facts(overrides: Partial<TokenFacts> = {}): TokenFacts {
  return {
    tokenId: TOKEN_ID,
    eventIndex: 3n,
    serial: 12n,
    state: "Checked in",
    resales: 2,
    lastPrice: 49_950_000n,
    event: {
      name: "Concert in the Park",
      organizer: "Example Tickets B.V.",
      metadataHash: ZeroHash,
      currency: "EUR",
      shopUrl: "https://shop.example.com/concert",
      imageUrl: "https://img.example.com/concert.png",
      latitude: 52.3731,
      longitude: 4.8922,
      startTime: 1_900_000_000n,
      endTime: 1_900_010_800n,
    },
    ...overrides,
  };
}

describe("tokenMetadata", () => {
  it("names the event and the ticket number and lists the chain's facts as OpenSea attributes", () => {
    expect(tokenMetadata(facts(), NONE, PAGE)).toEqual({
      name: "Concert in the Park #12",
      description:
        "Ticket #12 to Concert in the Park, organized by Example Tickets B.V., starting 2030-03-17 17:46 UTC. State: Checked in. Every fact here is read from the ticket registry on chain.",
      image: "https://img.example.com/concert.png",
      external_url: PAGE,
      attributes: [
        { trait_type: "Event", value: "Concert in the Park" },
        { trait_type: "Organizer", value: "Example Tickets B.V." },
        { trait_type: "Start", display_type: "date", value: 1_900_000_000 },
        { trait_type: "End", display_type: "date", value: 1_900_010_800 },
        { trait_type: "Venue latitude", value: 52.3731 },
        { trait_type: "Venue longitude", value: 4.8922 },
        { trait_type: "Ticket number", display_type: "number", value: 12 },
        { trait_type: "State", value: "Checked in" },
        { trait_type: "Resales", display_type: "number", value: 2 },
        { trait_type: "Last price", display_type: "number", value: 49.95 },
        { trait_type: "Currency", value: "EUR" },
      ],
    });
  });

  it("shows the ticket's own uri as its image when the integrator gave one", () => {
    expect(tokenMetadata(facts(), withUri("ipfs://ticket-12.png"), PAGE).image).toBe("ipfs://ticket-12.png");
  });

  it.each(["javascript:alert(1)", "data:text/html;base64,PHNjcmlwdD4=", "http://img.example.com/1.png", "file:///etc/passwd"])(
    "never shows a uri stored before the ledger took only https, ipfs and ar (%s): the event's image stands in",
    (uri) => {
      const metadata = tokenMetadata(facts(), withUri(uri), PAGE);
      expect(metadata.image).toBe("https://img.example.com/concert.png");
      expect(JSON.stringify(metadata)).not.toContain(uri);
    },
  );

  it("leaves out what the event left unset instead of showing zeros, and the image when there is none", () => {
    const bare = facts({
      event: {
        name: "",
        organizer: "Org",
        metadataHash: ZeroHash,
        currency: "EUR",
        shopUrl: "",
        imageUrl: "",
        latitude: 0,
        longitude: 0,
        startTime: 0n,
        endTime: 0n,
      },
      lastPrice: null,
      state: "Valid",
      resales: 0,
    });
    const metadata = tokenMetadata(bare, NONE, PAGE);
    expect(metadata.name).toBe("Ticket #12");
    expect(metadata).not.toHaveProperty("image");
    expect(metadata.attributes.map((attribute) => attribute.trait_type)).toEqual(["Organizer", "Ticket number", "State", "Resales", "Currency"]);
  });

  it("never shows raw ids: only the tokenId's parts and what the chain records", () => {
    const text = JSON.stringify(tokenMetadata(facts(), NONE, PAGE));
    expect(text).not.toMatch(/ticketId|eventId|ticketeerId/);
  });
});

describe("tokenMetadata with the integrator's metadata", () => {
  const ledger: LedgerMetadata = {
    ticket: {
      uri: null,
      name: "Concert in the Park, seat 12A",
      description: "Front row, left of the stage.",
      animationUrl: "ipfs://bafy/12.mp4",
      attributes: [
        { traitType: "Seat", value: "12A" },
        { traitType: "Row", value: 1, displayType: "number" },
      ],
    },
    event: { description: "Chamber music under the trees.", ticketImageUrl: "ar://tx/ticket.png" },
  };

  it("shows the integrator's name, description and animation_url, and its attributes after the chain's in OpenSea's form", () => {
    const metadata = tokenMetadata(facts(), ledger, PAGE);
    expect(metadata).toMatchObject({
      name: "Concert in the Park, seat 12A",
      description: "Front row, left of the stage.",
      animation_url: "ipfs://bafy/12.mp4",
      image: "ar://tx/ticket.png",
    });
    expect(metadata.attributes.slice(-3)).toEqual([
      { trait_type: "Currency", value: "EUR" },
      { trait_type: "Seat", value: "12A" },
      { trait_type: "Row", value: 1, display_type: "number" },
    ]);
  });

  it("takes the image from the ticket's uri, else the event's ticketImageUrl, else the event's imageUrl", () => {
    expect(tokenMetadata(facts(), { ...ledger, ticket: { ...ledger.ticket, uri: "ipfs://own.png" } }, PAGE).image).toBe("ipfs://own.png");
    expect(tokenMetadata(facts(), ledger, PAGE).image).toBe("ar://tx/ticket.png");
    expect(tokenMetadata(facts(), { ...ledger, event: { ticketImageUrl: "javascript:alert(1)" } }, PAGE).image).toBe("https://img.example.com/concert.png");
  });

  it("falls back to the event's description, then the one written from the chain's facts", () => {
    expect(tokenMetadata(facts(), { ticket: {}, event: ledger.event }, PAGE).description).toBe("Chamber music under the trees.");
    expect(tokenMetadata(facts(), NONE, PAGE).description).toMatch(/^Ticket #12 to Concert in the Park/);
    expect(tokenMetadata(facts(), NONE, PAGE)).not.toHaveProperty("animation_url");
  });

  it("never lets an integrator's attribute stand beside a chain trait, whatever was stored", () => {
    const forged: LedgerMetadata = {
      ticket: {
        attributes: [
          { traitType: "STATE", value: "Valid" },
          { traitType: "Seat", value: "1" },
        ],
      },
      event: {},
    };
    const metadata = tokenMetadata(facts(), forged, PAGE);
    expect(metadata.attributes.filter((attribute) => attribute.trait_type.toLowerCase() === "state")).toEqual([{ trait_type: "State", value: "Checked in" }]);
    expect(metadata.attributes.at(-1)).toEqual({ trait_type: "Seat", value: "1" });
  });

  it("names every chain trait in CHAIN_TRAIT_TYPES, the list acceptance refuses, in its order", () => {
    expect(tokenMetadata(facts(), NONE, PAGE).attributes.map((attribute) => attribute.trait_type)).toEqual([...CHAIN_TRAIT_TYPES]);
  });
});

describe("stateOf", () => {
  const flags = { checkedIn: false, invalidated: false, claimed: false, eventCancelled: false };

  it("puts the event's cancellation above every flag of the ticket: a cancelled event's ticket is void, claimed or not", () => {
    for (const own of [{}, { checkedIn: true }, { invalidated: true }, { checkedIn: true, claimed: true }]) {
      expect(stateOf({ ...flags, ...own, eventCancelled: true })).toBe("Event cancelled");
    }
    expect(stateOf({ ...flags, checkedIn: true, claimed: true })).toBe("Claimed");
    expect(stateOf(flags)).toBe("Valid");
  });

  it("shows the state in the metadata's State attribute and description", () => {
    const metadata = tokenMetadata(facts({ state: "Event cancelled" }), NONE, PAGE);
    expect(metadata.attributes).toContainEqual({ trait_type: "State", value: "Event cancelled" });
    expect(metadata.description).toContain("State: Event cancelled.");
  });
});
