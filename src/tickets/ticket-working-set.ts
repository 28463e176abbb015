import { uuidv7 } from "../common/uuid-v7";
import { TicketEntity } from "./entities/ticket.entity";
import type { TicketsStore } from "./tickets.store";

export type NewTicketFields = Pick<
  TicketEntity,
  "eventRef" | "ticketId" | "serial" | "tokenId" | "price" | "uri" | "name" | "description" | "animationUrl" | "attributes" | "orderTime"
>;

/** What a working set needs of the tickets' storage. */
export type TicketWorkingSetStore = Pick<TicketsStore, "lockForAcceptance" | "insertNew" | "saveChanges">;

/**
 * The tickets one acceptance reads and writes, in memory. Existing rows are locked in id order (no
 * deadlocks between requests); a ticketId another request created meanwhile (a unique violation on
 * insert) makes the acceptance start over.
 */
export class TicketWorkingSet {
  private readonly byTicketId = new Map<string, TicketEntity>();
  private readonly created = new Set<TicketEntity>();
  private readonly changed = new Set<TicketEntity>();

  constructor(
    private readonly store: TicketWorkingSetStore,
    private readonly organizationId: string,
  ) {}

  async load(ticketIds: readonly string[]): Promise<void> {
    for (const row of await this.store.lockForAcceptance(this.organizationId, ticketIds)) this.byTicketId.set(row.ticketId, row);
  }

  /** The events of the tickets loaded. */
  eventRefs(): string[] {
    return [...new Set([...this.byTicketId.values()].map((ticket) => ticket.eventRef))];
  }

  find(ticketId: string): TicketEntity | undefined {
    return this.byTicketId.get(ticketId);
  }

  create(fields: NewTicketFields): TicketEntity {
    // Field by field rather than Object.assign of three objects: a /stream request creates thousands.
    const ticket = new TicketEntity();
    ticket.id = uuidv7();
    ticket.organizationId = this.organizationId;
    ticket.eventRef = fields.eventRef;
    ticket.ticketId = fields.ticketId;
    ticket.serial = fields.serial;
    ticket.tokenId = fields.tokenId;
    ticket.price = fields.price;
    ticket.uri = fields.uri;
    ticket.name = fields.name;
    ticket.description = fields.description;
    ticket.animationUrl = fields.animationUrl;
    ticket.attributes = fields.attributes;
    ticket.orderTime = fields.orderTime;
    ticket.checkedIn = false;
    ticket.invalidated = false;
    ticket.claimed = false;
    ticket.claimedTo = null;
    ticket.resales = 0;
    this.byTicketId.set(ticket.ticketId, ticket);
    this.created.add(ticket);
    return ticket;
  }

  touch(ticket: TicketEntity): void {
    if (!this.created.has(ticket)) this.changed.add(ticket);
  }

  async flush(): Promise<void> {
    await this.store.insertNew([...this.created]);
    await this.store.saveChanges([...this.changed]);
  }
}
