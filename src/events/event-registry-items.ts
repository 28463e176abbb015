import type { AuthenticatedOrganization } from "../auth/authenticated-organization";
import { eventKeyOf, eventMetadataHash, type RegistryBatchItem, type RegistryEventDetails, ticketeerKeyOf } from "../registry";
import type { EventEntity } from "./entities/event.entity";
import { eventMetadataOf } from "./event-metadata";

/** Who organizes an event, as it is shown on chain. */
type Organizer = Pick<AuthenticatedOrganization, "ticketeerId" | "name">;

/**
 * The registry items that mirror an event: the details anyone may check on chain (name, currency, shop
 * and image URLs, location, times), its organizer and the hash of its off-chain metadata. Its ids go on chain only as hashes, and its
 * callbackUrl not at all: they are the integrator's, not the public's (docs/contract.md#what-is-recorded).
 */
export function registerEventItem(event: EventEntity, organization: Organizer): RegistryBatchItem {
  return {
    action: "registerEvent",
    eventIndex: event.eventIndex,
    eventKey: eventKeyOf(organization.ticketeerId, event.eventId),
    ticketeer: ticketeerKeyOf(organization.ticketeerId),
    details: detailsOf(event, organization),
  };
}

/** One item for the whole event: the registry reads every one of its tickets as cancelled from it. */
export function cancelEventItem(event: EventEntity): RegistryBatchItem {
  return { action: "cancelEvent", eventIndex: event.eventIndex };
}

export function updateEventItem(event: EventEntity, organization: Organizer): RegistryBatchItem {
  return { action: "updateEvent", eventIndex: event.eventIndex, details: detailsOf(event, organization) };
}

/**
 * The organizer a token's metadata shows is the event's ticketeerName, or the organization's own name
 * when the event gives none: never blank for a fan, and a public name, unlike the ticketeerId, which
 * the chain holds only as a hash.
 */
export function organizerOf(event: Pick<EventEntity, "ticketeerName">, organization: Pick<Organizer, "name">): string {
  return event.ticketeerName === "" ? organization.name : event.ticketeerName;
}

function detailsOf(event: EventEntity, organization: Organizer): RegistryEventDetails {
  return {
    name: event.name,
    currency: event.currency,
    shopUrl: event.shopUrl,
    imageUrl: event.imageUrl,
    latitude: event.latitude,
    longitude: event.longitude,
    startTime: event.startTime,
    endTime: event.endTime,
    organizer: organizerOf(event, organization),
    // ZeroHash while the event says nothing off chain: what the registry reads as no metadata.
    metadataHash: eventMetadataHash(eventMetadataOf(event)),
  };
}
