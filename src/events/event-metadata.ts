import type { EventMetadata } from "../registry";
import type { EventEntity } from "./entities/event.entity";

/** What an event's tokens show beyond the details the chain holds: the fields whose canonical hash its details carry. Blank is unset. */
export function eventMetadataOf(event: Pick<EventEntity, "description" | "ticketImageUrl">): EventMetadata {
  return { description: event.description || null, ticketImageUrl: event.ticketImageUrl || null };
}
