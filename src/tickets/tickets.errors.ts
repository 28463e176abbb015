import { errorDetail, type ErrorDetail } from "../common/errors/error-detail";

export const TicketErrors = {
  exists: (ticketId: string): ErrorDetail => errorDetail("ticket_exists", `Ticket ${ticketId} is already sold.`, "ticketId"),
  notFound: (ticketId: string): ErrorDetail => errorDetail("ticket_not_found", `Ticket ${ticketId} is not registered.`, "ticketId"),
  checkedIn: (ticketId: string): ErrorDetail => errorDetail("ticket_checked_in", `Ticket ${ticketId} is checked in.`, "ticketId"),
  invalidated: (ticketId: string): ErrorDetail => errorDetail("ticket_invalidated", `Ticket ${ticketId} is invalidated.`, "ticketId"),
  claimed: (ticketId: string): ErrorDetail => errorDetail("ticket_claimed", `Ticket ${ticketId} is claimed.`, "ticketId"),
  eventCancelled: (ticketId: string): ErrorDetail => errorDetail("event_cancelled", `The event of ticket ${ticketId} is cancelled.`, "ticketId"),
  nothingToUpdate: (): ErrorDetail =>
    errorDetail("invalid_field", "updateTicket needs at least one of uri, name, description, animationUrl and attributes.", "uri"),
  notCheckedIn: (ticketId: string): ErrorDetail =>
    errorDetail("ticket_not_checked_in", `Ticket ${ticketId} is not checked in: only a checked-in ticket can be claimed.`, "ticketId"),
};
