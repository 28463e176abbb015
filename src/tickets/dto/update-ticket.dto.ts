import { TicketIdField, UriField } from "./ticket-fields";

/** `updateTicket` stream data: a new metadata URI, whose metadata hash goes on chain. */
export class UpdateTicketDto {
  @TicketIdField()
  ticketId: string;

  @UriField(true)
  uri: string;
}
