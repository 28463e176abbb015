import type { TicketMetadata } from "../registry";
import type { TicketEntity } from "./entities/ticket.entity";

/** The ticket fields the metadata is read from: what the token JSON's store selects too. */
export type TicketMetadataFields = Pick<TicketEntity, "uri" | "name" | "description" | "animationUrl" | "attributes">;

/**
 * What a ticket's token shows beyond the chain's facts: the fields whose canonical hash the registry
 * records. Blank and empty are unset (null), as the canonical document leaves them out.
 */
export function ticketMetadataOf(ticket: TicketMetadataFields): TicketMetadata {
  return {
    uri: ticket.uri || null,
    name: ticket.name || null,
    description: ticket.description || null,
    animationUrl: ticket.animationUrl || null,
    attributes: ticket.attributes.length > 0 ? ticket.attributes : null,
  };
}
