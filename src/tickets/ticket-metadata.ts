import type { TicketMetadata } from "../registry";
import type { TicketEntity } from "./entities/ticket.entity";

/** What a ticket's token shows beyond the chain's facts: the fields whose canonical hash the registry records. */
export function ticketMetadataOf(ticket: Pick<TicketEntity, "uri">): TicketMetadata {
  return { uri: ticket.uri || null };
}
