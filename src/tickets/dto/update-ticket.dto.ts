import { TicketIdField, UriField } from "./ticket-fields";
import { TicketMetadataFieldsDto } from "./ticket-metadata-fields.dto";

/**
 * `updateTicket` stream data: a new uri or metadata, at least one field. The fields given replace the
 * stored ones, those left out keep theirs; nothing of it goes on chain.
 */
export class UpdateTicketDto extends TicketMetadataFieldsDto {
  @TicketIdField()
  ticketId: string;

  @UriField("update")
  uri?: string;
}
