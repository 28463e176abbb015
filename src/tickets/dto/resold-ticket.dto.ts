import { OrderTimeField, PriceField, TicketIdField } from "./ticket-fields";

/** A resale: POST /api/v1/resold items and `resoldTicket` stream data. */
export class ResoldTicketDto {
  @TicketIdField()
  ticketId: string;

  @PriceField()
  price: string;

  @OrderTimeField()
  orderTime?: number | string;
}
