import { OrderTimeField, TicketIdField } from "./ticket-fields";

/** A check-in or an invalidation: the ticket and when it happened. */
export class TicketMomentDto {
  @TicketIdField()
  ticketId: string;

  @OrderTimeField()
  orderTime?: number | string;
}
