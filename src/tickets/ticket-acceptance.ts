import { unique } from "../common/unique";
import { type EventParts, type EventPlan } from "../events/event-acceptance";
import { EventWorkingSet } from "../events/event-working-set";
import { EventsRepository } from "../events/events.repository";
import type { AcceptedStateKind } from "../ledger/acceptance-context";
import { TicketWorkingSet } from "./ticket-working-set";
import { TicketsRepository } from "./tickets.repository";

/** What an acceptance of ticket actions (and event actions beside them, in /stream) loads. */
export interface TicketPlan extends EventPlan {
  /** Tickets the actions act on: loaded and locked. */
  ticketIds: string[];
  /**
   * Tickets the request sells. They are expected not to exist, so the first attempt does not look
   * them up; one that does exist fails the insert, and the attempt that follows loads them all.
   */
  soldTicketIds: string[];
}

export interface TicketParts extends EventParts {
  tickets: TicketWorkingSet;
}

/** The accepted state of ticket actions, and of /stream's mixed lists: the organization's events and tickets. */
export const TICKET_ACCEPTANCE: AcceptedStateKind<TicketPlan, TicketParts> = {
  emptyPlan: () => ({ eventIds: [], newEvents: 0, ticketIds: [], soldTicketIds: [] }),
  retryPlan: (plan) => ({ ...plan, ticketIds: [...plan.ticketIds, ...plan.soldTicketIds] }),
  open(manager, organizationId) {
    const events = new EventWorkingSet(new EventsRepository(manager), organizationId);
    const tickets = new TicketWorkingSet(new TicketsRepository(manager), organizationId);
    return {
      parts: { events, tickets },
      // Events before tickets: every acceptance takes its locks in the same order.
      async load(plan) {
        await events.load(unique(plan.eventIds), plan.newEvents);
        await tickets.load(unique(plan.ticketIds));
      },
      async flush() {
        await events.flush();
        await tickets.flush();
      },
    };
  },
};
