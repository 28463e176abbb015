import { ApiSchema } from "@nestjs/swagger";

import { TicketIdField, UriField } from "./ticket-fields";
import { TicketMetadataFieldsDto } from "./ticket-metadata-fields.dto";

/**
 * `updateTicket` stream data: a new uri or metadata, at least one field. The fields given replace the
 * stored ones, those left out keep theirs; the hash of the ticket's new metadata goes on chain.
 */
@ApiSchema({
  description:
    "A ticket's new uri or metadata: at least one of uri, name, description, animationUrl and attributes (invalid_field naming uri otherwise). " +
    "Each field given replaces the stored one (blank, or an empty attributes array, clears it); each field left out keeps its value. " +
    "A refused item changes nothing of the ticket, and so is one of a cancelled event's tickets (event_cancelled). Goes on chain with the " +
    "keccak-256 of the ticket's new canonical metadata (waiting_broadcast, pending, confirmed) and the registry tells wallets with ERC-4906.",
})
export class UpdateTicketDto extends TicketMetadataFieldsDto {
  @TicketIdField()
  ticketId: string;

  @UriField("update")
  uri?: string;
}
