import { unique } from "../common/unique";
import { type EventParts, type EventPlan } from "../events/event-acceptance";
import { EventWorkingSet } from "../events/event-working-set";
import { EventsStore, type SerialRange } from "../events/events.store";
import type { AcceptedStateKind } from "../ledger/acceptance-context";
import { TicketWorkingSet } from "./ticket-working-set";
import { TicketsStore } from "./tickets.store";

/** What an acceptance of ticket actions (and event actions beside them, in /stream) loads. */
export interface TicketPlan extends EventPlan {
  /** Tickets the actions act on: loaded and locked. */
  ticketIds: string[];
  /**
   * Tickets the request sells. They are expected not to exist, so the first attempt does not look
   * them up; one that does exist fails the insert, and the attempt that follows loads them all.
   */
  soldTicketIds: string[];
  /** How many tickets the request sells in each event, by eventId: read, not locked, unless an action changes the event. */
  sales: Map<string, number>;
  /** Serials reserved for those sales before the acceptance, by eventId; kept by the attempts that follow. */
  serials: ReadonlyMap<string, SerialRange>;
}

export interface TicketParts extends EventParts {
  tickets: TicketWorkingSet;
}

/** The accepted state of ticket actions, and of /stream's mixed lists: the organization's events and tickets. */
export const TICKET_ACCEPTANCE: AcceptedStateKind<TicketPlan, TicketParts> = {
  emptyPlan: () => ({ eventIds: [], newEvents: 0, ticketIds: [], soldTicketIds: [], sales: new Map(), serials: new Map() }),
  retryPlan: (plan) => ({ ...plan, ticketIds: [...plan.ticketIds, ...plan.soldTicketIds] }),
  /**
   * Serials for the sales of events that exist, reserved in a short transaction of their own: the
   * acceptance then never holds an event's row for a sale but for its last statement. An attempt
   * after a conflict reserves only for events that had none (created meanwhile).
   */
  async reserve(manager, organizationId, plan) {
    const wanted = new Map([...plan.sales].filter(([eventId]) => !plan.serials.has(eventId)));
    if (wanted.size === 0) return plan;
    const reserved = await new EventsStore(manager).reserveSerials(organizationId, wanted);
    return reserved.size === 0 ? plan : { ...plan, serials: new Map([...plan.serials, ...reserved]) };
  },
  open(manager, organizationId) {
    const events = new EventWorkingSet(new EventsStore(manager), organizationId);
    const tickets = new TicketWorkingSet(new TicketsStore(manager), organizationId);
    return {
      parts: { events, tickets },
      // Events before tickets: every acceptance takes its locks in the same order.
      async load(plan) {
        await events.load(unique(plan.eventIds), plan.newEvents, { eventIds: [...plan.sales.keys()], serials: plan.serials });
        await tickets.load(unique(plan.ticketIds));
      },
      async flush() {
        await events.flush();
        await tickets.flush();
      },
      settle: () => events.settle(),
    };
  },
};
