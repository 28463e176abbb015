import type { StreamActionName } from "../common/actions";
import type { ActionDescriptor } from "../ledger/action-descriptor";
import type { TicketParts, TicketPlan } from "../tickets/ticket-acceptance";
import { EventActions } from "../events/event-actions";
import { TicketActions } from "../tickets/ticket-actions";

/**
 * The rule behind each name POST /stream takes (the names: the ACTIONS table, src/common/actions.ts),
 * and which ids each echoes in its result.
 */
export const STREAM_ACTIONS = {
  newEvent: { descriptor: EventActions.newEvent, echoes: ["eventId"] },
  updateEvent: { descriptor: EventActions.updateEvent, echoes: ["eventId"] },
  soldTicket: { descriptor: TicketActions.sold, echoes: ["eventId", "ticketId"] },
  updateTicket: { descriptor: TicketActions.updateTicket, echoes: ["ticketId"] },
  resoldTicket: { descriptor: TicketActions.resold, echoes: ["ticketId"] },
  scannedTicket: { descriptor: TicketActions.checkIn, echoes: ["ticketId"] },
  checkedInTicket: { descriptor: TicketActions.checkIn, echoes: ["ticketId"] },
  claimedTicket: { descriptor: TicketActions.claimed, echoes: ["ticketId"] },
  invalidatedTicket: { descriptor: TicketActions.invalidated, echoes: ["ticketId"] },
  cancelledEvent: { descriptor: EventActions.cancel, echoes: ["eventId"] },
} satisfies Record<StreamActionName, { descriptor: ActionDescriptor<object, TicketPlan, TicketParts>; echoes: ("eventId" | "ticketId")[] }>;

export type { StreamActionName };

export const STREAM_ACTION_NAMES = Object.keys(STREAM_ACTIONS) as StreamActionName[];

export function isStreamAction(value: unknown): value is StreamActionName {
  return typeof value === "string" && Object.hasOwn(STREAM_ACTIONS, value);
}
