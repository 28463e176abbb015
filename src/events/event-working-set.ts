import { uuidv7 } from "../common/uuid-v7";
import { AcceptanceConflict } from "../ledger/acceptance-conflict";
import { EventEntity } from "./entities/event.entity";
import type { EventsRepository } from "./events.repository";

export type NewEventFields = Omit<EventEntity, "id" | "organizationId" | "eventIndex" | "ticketsSold" | "createdAt" | "updatedAt">;

/** What a working set needs of the events' storage. */
export type EventStore = Pick<EventsRepository, "lockForAcceptance" | "reserveRegistryIndexes" | "insertNew" | "saveChanges">;

/**
 * The events one acceptance reads and writes, in memory. Loaded rows are locked for the length of
 * the transaction, so concurrent requests on the same event queue up instead of racing.
 */
export class EventWorkingSet {
  private readonly byEventId = new Map<string, EventEntity>();
  private readonly created = new Set<EventEntity>();
  private readonly changed = new Set<EventEntity>();
  private reservedIndexes: bigint[] = [];

  constructor(
    private readonly store: EventStore,
    private readonly organizationId: string,
  ) {}

  async load(eventIds: readonly string[], newEvents: number): Promise<void> {
    for (const row of await this.store.lockForAcceptance(this.organizationId, eventIds)) this.byEventId.set(row.eventId, row);
    this.reservedIndexes = await this.store.reserveRegistryIndexes(newEvents);
  }

  find(eventId: string): EventEntity | undefined {
    return this.byEventId.get(eventId);
  }

  create(fields: NewEventFields): EventEntity {
    const eventIndex = this.reservedIndexes.shift();
    if (eventIndex === undefined) throw new Error("more events created than reserved");
    const event = Object.assign(new EventEntity(), fields, { id: uuidv7(), organizationId: this.organizationId, eventIndex, ticketsSold: 0n });
    this.byEventId.set(event.eventId, event);
    this.created.add(event);
    return event;
  }

  /** Records that `event` changed; events created in this acceptance are inserted as they end up. */
  touch(event: EventEntity): void {
    if (!this.created.has(event)) this.changed.add(event);
  }

  async flush(): Promise<void> {
    const inserted = await this.store.insertNew([...this.created]);
    if (inserted !== this.created.size) throw new AcceptanceConflict("an event");
    await this.store.saveChanges([...this.changed]);
  }
}
