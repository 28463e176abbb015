import { EventIdField, OrderTimeField, PriceField, TicketIdField, UriField } from "./ticket-fields";

/** A primary sale: POST /api/v1/sold items and `soldTicket` stream data. */
export class SoldTicketDto {
  @EventIdField()
  eventId: string;

  @TicketIdField()
  ticketId: string;

  @PriceField()
  price: string;

  @OrderTimeField()
  orderTime?: number | string;

  @UriField(false)
  uri?: string;
}
