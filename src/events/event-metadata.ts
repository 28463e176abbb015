import type { EventMetadata } from "../registry";
import type { EventEntity } from "./entities/event.entity";

/** What an event's tokens show beyond the details the chain holds: the fields whose canonical hash its details carry. */
export function eventMetadataOf(_event: EventEntity): EventMetadata {
  return {};
}
