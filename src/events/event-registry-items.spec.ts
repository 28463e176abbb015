import { keccak256, toUtf8Bytes, ZeroHash } from "ethers";
import { describe, expect, it } from "vitest";

import { anEvent, validated } from "../../test/support/acceptance-fixture";
import { UpdateEventDto } from "./dto/update-event.dto";
import { registerEventItem, updateEventItem } from "./event-registry-items";
import { touchesChain } from "./event-rules";

const ORGANIZER = { ticketeerId: "ticketeer-1", name: "Example Tickets" };

function detailsOf(item: ReturnType<typeof registerEventItem>): { metadataHash: string } {
  return (item as { details: { metadataHash: string } }).details;
}

describe("an event's registry items", () => {
  it("carry ZeroHash while the event has no off-chain metadata", () => {
    expect(detailsOf(registerEventItem(anEvent(), ORGANIZER)).metadataHash).toBe(ZeroHash);
  });

  it("carry the keccak-256 of the event's canonical metadata, in a registration and an update alike", () => {
    const event = anEvent({ ticketImageUrl: "https://img.example/t.png", description: "Doors at 7" });
    const expected = keccak256(toUtf8Bytes('{"description":"Doors at 7","ticketImageUrl":"https://img.example/t.png"}'));
    expect(detailsOf(registerEventItem(event, ORGANIZER)).metadataHash).toBe(expected);
    expect(detailsOf(updateEventItem(event, ORGANIZER)).metadataHash).toBe(expected);
  });
});

describe("touchesChain", () => {
  const fields: Record<string, unknown> = {
    eventName: "New name",
    ticketeerName: "Org",
    currency: "USD",
    shopUrl: "https://shop.example",
    imageUrl: "https://img.example/e.png",
    description: "Doors at 7",
    ticketImageUrl: "https://img.example/t.png",
    latitude: 1,
    longitude: 2,
    startTime: 10,
    endTime: 20,
  };

  it.each(Object.entries(fields))("sends an update of %s on chain: its tokens show it", (field, value) => {
    expect(touchesChain(validated(UpdateEventDto, { eventId: "event-1", [field]: value }))).toBe(true);
  });

  it("keeps a change of only the callbackUrl off chain", () => {
    expect(touchesChain(validated(UpdateEventDto, { eventId: "event-1", callbackUrl: "https://integrator.example/cb" }))).toBe(false);
  });
});
