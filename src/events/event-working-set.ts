import { uuidv7 } from "../common/uuid-v7";
import { AcceptanceConflict } from "../ledger/acceptance-conflict";
import { EventEntity } from "./entities/event.entity";
import type { EventsStore, SerialRange } from "./events.store";

export type NewEventFields = Omit<
  EventEntity,
  | "id"
  | "organizationId"
  | "eventIndex"
  | "ticketsSold"
  | "lastSerial"
  | "cancelledAt"
  | "callbackFailingSince"
  | "callbackDisabledAt"
  | "releasedAt"
  | "createdAt"
  | "updatedAt"
>;

/** What a working set needs of the events' storage. */
export type EventWorkingSetStore = Pick<
  EventsStore,
  "lockForAcceptance" | "readForAcceptance" | "readByRefsForAcceptance" | "reserveRegistryIndexes" | "insertNew" | "saveChanges" | "addTicketsSold"
>;

/** Events a sale needs besides the locked ones: read without a lock, with the serials reserved for the request. */
export interface SaleEvents {
  eventIds: readonly string[];
  serials: ReadonlyMap<string, SerialRange>;
}

/**
 * The events one acceptance reads and writes, in memory. Events the request changes are locked for
 * the length of the transaction, so concurrent requests on the same event queue up instead of
 * racing. Events it only sells tickets of are read without a lock and never written: their serials
 * come from ranges reserved before the acceptance, and their sales are recorded as rows of their
 * own, so that concurrent sales of one event do not queue for its row.
 */
export class EventWorkingSet {
  private readonly byEventId = new Map<string, EventEntity>();
  private readonly byRef = new Map<string, EventEntity>();
  private readonly locked = new Set<EventEntity>();
  private readonly created = new Set<EventEntity>();
  private readonly changed = new Set<EventEntity>();
  /** Sales of events read without a lock, recorded apart at settle(). */
  private readonly unlockedSales = new Map<EventEntity, bigint>();
  /** The next unused serial of each reserved range, by eventId. */
  private readonly serials = new Map<string, SerialRange>();
  private reservedIndexes: bigint[] = [];

  constructor(
    private readonly store: EventWorkingSetStore,
    private readonly organizationId: string,
  ) {}

  /** Locks `eventIds`, reads the other events `sales` names, and reserves registry indexes for `newEvents` events. */
  async load(eventIds: readonly string[], newEvents: number, sales: SaleEvents = { eventIds: [], serials: new Map() }): Promise<void> {
    for (const row of await this.store.lockForAcceptance(this.organizationId, eventIds)) {
      this.keep(row);
      this.locked.add(row);
    }
    const unlocked = sales.eventIds.filter((eventId) => !eventIds.includes(eventId));
    for (const row of await this.store.readForAcceptance(this.organizationId, unlocked)) this.keep(row);
    for (const [eventId, range] of sales.serials) this.serials.set(eventId, { ...range });
    this.reservedIndexes = await this.store.reserveRegistryIndexes(newEvents);
  }

  /**
   * Reads, without a lock, the events of tickets the acceptance acts on that it holds not yet: a
   * ticket action needs only whether its event is cancelled. One cancelled meanwhile is refused by
   * the registry, which then ends the action in error and puts its ticket back.
   */
  async loadRefs(eventRefs: readonly string[]): Promise<void> {
    const missing = [...new Set(eventRefs)].filter((ref) => !this.byRef.has(ref));
    for (const row of await this.store.readByRefsForAcceptance(this.organizationId, missing)) this.keep(row);
  }

  find(eventId: string): EventEntity | undefined {
    return this.byEventId.get(eventId);
  }

  /** The event of a ticket the acceptance holds, by its row id (see loadRefs). */
  findByRef(eventRef: string): EventEntity | undefined {
    return this.byRef.get(eventRef);
  }

  private keep(event: EventEntity): void {
    this.byEventId.set(event.eventId, event);
    this.byRef.set(event.id, event);
  }

  create(fields: NewEventFields): EventEntity {
    const eventIndex = this.reservedIndexes.shift();
    if (eventIndex === undefined) throw new Error("more events created than reserved");
    const event = Object.assign(new EventEntity(), fields, {
      id: uuidv7(),
      organizationId: this.organizationId,
      eventIndex,
      ticketsSold: 0n,
      lastSerial: 0n,
      cancelledAt: null,
      callbackFailingSince: null,
      callbackDisabledAt: null,
    });
    this.keep(event);
    this.created.add(event);
    this.locked.add(event);
    return event;
  }

  /** Records that `event` changed; events created in this acceptance are inserted as they end up. */
  touch(event: EventEntity): void {
    if (!this.locked.has(event)) throw new Error(`event ${event.eventId} was not locked: it cannot be changed in this acceptance`);
    if (!this.created.has(event)) this.changed.add(event);
  }

  /**
   * Counts a ticket sold in `event` and returns its serial: the next of the range reserved for the
   * request, else, for an event this acceptance created or holds locked, the next past its last one.
   * An event read without a lock and without a reservation was created after the reservation was
   * made: the acceptance starts over, and reserves for it then.
   */
  sell(event: EventEntity): bigint {
    const range = this.serials.get(event.eventId);
    let serial: bigint;
    if (range && range.first <= range.last) {
      serial = range.first;
      range.first += 1n;
    } else if (this.locked.has(event)) {
      event.lastSerial += 1n;
      serial = event.lastSerial;
    } else {
      throw new AcceptanceConflict(`the event ${event.eventId} after its serials were reserved`);
    }
    event.ticketsSold += 1n;
    if (this.locked.has(event)) this.touch(event);
    else this.unlockedSales.set(event, (this.unlockedSales.get(event) ?? 0n) + 1n);
    return serial;
  }

  async flush(): Promise<void> {
    const inserted = await this.store.insertNew([...this.created]);
    if (inserted !== this.created.size) throw new AcceptanceConflict("an event");
    await this.store.saveChanges([...this.changed]);
  }

  /** The acceptance's last writes: the sales of events read without a lock, recorded apart. */
  async settle(): Promise<void> {
    await this.store.addTicketsSold([...this.unlockedSales].map(([event, count]) => ({ id: event.id, count })));
  }
}
