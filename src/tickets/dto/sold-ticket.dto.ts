import { EventIdField, OrderTimeField, PriceField, TicketIdField, UriField } from "./ticket-fields";
import { TicketMetadataFieldsDto } from "./ticket-metadata-fields.dto";

/** A primary sale: POST /api/v1/sold items and `soldTicket` stream data. */
export class SoldTicketDto extends TicketMetadataFieldsDto {
  @EventIdField()
  eventId: string;

  @TicketIdField()
  ticketId: string;

  @PriceField()
  price: string;

  @OrderTimeField()
  orderTime?: number | string;

  @UriField("sale")
  uri?: string;
}
