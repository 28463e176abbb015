import { BigInt, Bytes } from "@graphprotocol/graph-ts";

import { Event } from "../generated/schema";
import { EventCancelled, EventRegistered, EventUpdated, EventUpdatedDetailsStruct } from "../generated/TicketRegistry/TicketRegistry";
import { registryOf } from "./entities";

export function handleEventRegistered(log: EventRegistered): void {
  const event = new Event(log.params.eventIndex.toString());
  event.eventIndex = log.params.eventIndex;
  event.eventKey = log.params.eventKey;
  event.ticketeer = log.params.ticketeer;
  event.custody = log.params.custody;
  setDetails(event, changetype<EventUpdatedDetailsStruct>(log.params.details));
  event.cancelled = false;
  event.registeredAt = log.block.timestamp;
  event.updatedAt = log.block.timestamp;
  event.ticketsSold = 0;
  event.checkedIn = 0;
  event.invalidated = 0;
  event.claimed = 0;
  event.resales = 0;
  event.metadataUpdates = 0;
  event.save();

  const registry = registryOf(log);
  registry.events = registry.events.plus(BigInt.fromI32(1));
  registry.save();
}

export function handleEventUpdated(log: EventUpdated): void {
  const event = Event.load(log.params.eventIndex.toString());
  if (event == null) return;
  setDetails(event, log.params.details);
  event.updatedAt = log.block.timestamp;
  event.save();
}

/** Every ticket of a cancelled event is void; the registry writes no per-ticket log for it. */
export function handleEventCancelled(log: EventCancelled): void {
  const event = Event.load(log.params.eventIndex.toString());
  if (event == null) return;
  event.cancelled = true;
  event.cancelledAt = log.block.timestamp;
  event.save();
  const tickets = event.tickets.load();
  for (let i = 0; i < tickets.length; i++) {
    tickets[i].eventCancelled = true;
    tickets[i].save();
  }
}

// Both logs carry the same EventDetails tuple; codegen names a class for each.
function setDetails(event: Event, details: EventUpdatedDetailsStruct): void {
  event.name = details.name;
  event.currency = details.currency;
  event.shopUrl = details.shopUrl;
  event.imageUrl = details.imageUrl;
  event.latitude = details.latitude;
  event.longitude = details.longitude;
  event.startTime = details.startTime;
  event.endTime = details.endTime;
  event.organizer = details.organizer;
  event.metadataHash = Bytes.fromUint8Array(details.metadataHash);
}
