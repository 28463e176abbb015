import { unique } from "../common/unique";
import type { AcceptedStateKind } from "../ledger/acceptance-context";
import { EventWorkingSet } from "./event-working-set";
import { EventsStore } from "./events.store";

/** What an acceptance of event actions loads: the events named, and registry indexes for the new ones. */
export interface EventPlan {
  eventIds: string[];
  /** How many events the request may create: their registry indexes are reserved up front. */
  newEvents: number;
}

export interface EventParts {
  events: EventWorkingSet;
}

/** The accepted state of event actions (POST /api/v1/events): the organization's events. */
export const EVENT_ACCEPTANCE: AcceptedStateKind<EventPlan, EventParts> = {
  emptyPlan: () => ({ eventIds: [], newEvents: 0 }),
  retryPlan: (plan) => plan,
  open(manager, organizationId) {
    const events = new EventWorkingSet(new EventsStore(manager), organizationId);
    return {
      parts: { events },
      load: (plan) => events.load(unique(plan.eventIds), plan.newEvents),
      flush: () => events.flush(),
      settle: () => events.settle(),
    };
  },
};
