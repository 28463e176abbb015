import { unique } from "../common/unique";
import { type EventParts, type EventPlan } from "../events/event-acceptance";
import { EventWorkingSet } from "../events/event-working-set";
import { EventsStore, type SerialRange } from "../events/events.store";
import type { AcceptedStateKind } from "../ledger/acceptance-context";
import { ClaimReceivers } from "./claim-receivers";
import { ClaimReceiversStore } from "./claim-receivers.store";
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
  /** How many claims the request makes: their receivers are checked against what the ledger knows of its chain. */
  claims: number;
}

export interface TicketParts extends EventParts {
  tickets: TicketWorkingSet;
  receivers: ClaimReceiverRules;
}

/** The receivers claims may not go to, read once per acceptance that makes a claim. */
export class ClaimReceiverRules {
  private receivers = new ClaimReceivers({ binding: null, signers: [] });

  constructor(private readonly store: Pick<ClaimReceiversStore, "load">) {}

  async load(): Promise<void> {
    this.receivers = new ClaimReceivers(await this.store.load());
  }

  refusalOf(to: string): string | null {
    return this.receivers.refusalOf(to);
  }
}

/** The accepted state of ticket actions, and of /stream's mixed lists: the organization's events and tickets. */
export const TICKET_ACCEPTANCE: AcceptedStateKind<TicketPlan, TicketParts> = {
  emptyPlan: () => ({ eventIds: [], newEvents: 0, ticketIds: [], soldTicketIds: [], sales: new Map(), serials: new Map(), claims: 0 }),
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
    const receivers = new ClaimReceiverRules(new ClaimReceiversStore(manager));
    return {
      parts: { events, tickets, receivers },
      // Events before tickets: every acceptance takes its locks in the same order.
      async load(plan) {
        await events.load(unique(plan.eventIds), plan.newEvents, { eventIds: [...plan.sales.keys()], serials: plan.serials });
        await tickets.load(unique(plan.ticketIds));
        // After the tickets: the events of tickets the request acts on, for whether they are cancelled.
        await events.loadRefs(tickets.eventRefs());
        if (plan.claims > 0) await receivers.load();
      },
      async flush() {
        await events.flush();
        await tickets.flush();
      },
      settle: () => events.settle(),
    };
  },
};
