import { eventKeyOf, type RegistryBatchItem, type RegistryEventDetails, ticketeerKeyOf } from "../registry";
import type { EventEntity } from "./entities/event.entity";

/** The registry items that mirror an event: its fields marked "on blockchain" in the spec. */
export function registerEventItem(event: EventEntity, ticketeerId: string): RegistryBatchItem {
  return {
    action: "registerEvent",
    eventIndex: event.eventIndex,
    eventKey: eventKeyOf(ticketeerId, event.eventId),
    ticketeer: ticketeerKeyOf(ticketeerId),
    details: detailsOf(event),
  };
}

export function updateEventItem(event: EventEntity): RegistryBatchItem {
  return { action: "updateEvent", eventIndex: event.eventIndex, details: detailsOf(event) };
}

function detailsOf(event: EventEntity): RegistryEventDetails {
  return {
    name: event.name,
    currency: event.currency,
    shopUrl: event.shopUrl,
    imageUrl: event.imageUrl,
    latitude: event.latitude,
    longitude: event.longitude,
    startTime: event.startTime,
    endTime: event.endTime,
  };
}
