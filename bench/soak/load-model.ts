import { Pool } from "./pool";

/** A ticket's accepted state as the load generator knows it from the service's answers. */
export type TicketState = "valid" | "checkedIn" | "invalidated" | "claimed";

export interface ModelEvent {
  eventId: string;
  /** The event's custody address once known: a claim sent there is one the service must refuse. */
  custody: string | null;
  plannedSales: number;
}

export interface ModelTicket {
  ticketId: string;
  event: ModelEvent;
  state: TicketState;
}

/**
 * What the load generator knows: accepted events, and idle tickets by state. A ticket with an action
 * in flight is in no pool, so it never gets a second action before the first is answered (the
 * service would be right to refuse it). A ticket whose request got no answer leaves the model: its
 * state is unknown.
 */
export class LoadModel {
  readonly events: ModelEvent[] = [];
  readonly pools: Record<"valid" | "checkedIn", Pool<ModelTicket>> = { valid: new Pool(), checkedIn: new Pool() };
  /** Events whose newEvent is in flight. */
  eventsInFlight = 0;
  private ticketCounter = 0;
  private eventCounter = 0;

  constructor(private readonly runTag: string) {}

  nextEventId(): string {
    return `${this.runTag}-event-${++this.eventCounter}`;
  }

  nextTicketId(): string {
    return `${this.runTag}-ticket-${++this.ticketCounter}`;
  }

  /** The event new sales go to: the newest accepted one, while it has room. */
  currentEvent(maxSalesPerEvent: number): ModelEvent | undefined {
    const newest = this.events[this.events.length - 1];
    return newest && newest.plannedSales < maxSalesPerEvent ? newest : undefined;
  }

  randomEvent(): ModelEvent | undefined {
    return this.events[Math.floor(Math.random() * this.events.length)];
  }

  /**
   * Forgets tickets and events whose state the service lost (a database restored from an earlier
   * dump): no action is planned on them again.
   */
  forget(ticketIds: ReadonlySet<string>, eventIds: ReadonlySet<string>): void {
    const gone = (ticket: ModelTicket) => ticketIds.has(ticket.ticketId) || eventIds.has(ticket.event.eventId);
    this.pools.valid.removeWhere(gone);
    this.pools.checkedIn.removeWhere(gone);
    const kept = this.events.filter((event) => !eventIds.has(event.eventId));
    this.events.splice(0, this.events.length, ...kept);
  }

  /** Puts a ticket whose action was answered back in the pool of its state (terminal states have none). */
  settle(ticket: ModelTicket, state: TicketState): void {
    ticket.state = state;
    if (state === "valid" || state === "checkedIn") this.pools[state].add(ticket);
  }
}
