import { uuidv7 } from "../common/uuid-v7";

import type { EntityManager } from "typeorm";

import { copyRows } from "../database/copy-rows";
import { TicketEntity } from "./entities/ticket.entity";

export type NewTicketFields = Pick<TicketEntity, "eventRef" | "ticketId" | "serial" | "tokenId" | "price" | "uri" | "orderTime">;

/**
 * The tickets one acceptance reads and writes. Existing rows are locked in id order (no deadlocks
 * between requests); rows it creates are copied in one statement, and a ticketId another request
 * created meanwhile (a unique violation) makes the acceptance start over.
 */
export class TicketWorkingSet {
  private readonly byTicketId = new Map<string, TicketEntity>();
  private readonly created = new Set<TicketEntity>();
  private readonly changed = new Set<TicketEntity>();

  constructor(
    private readonly manager: EntityManager,
    private readonly organizationId: string,
  ) {}

  async load(ticketIds: readonly string[]): Promise<void> {
    if (ticketIds.length === 0) return;
    const rows = await this.manager
      .getRepository(TicketEntity)
      .createQueryBuilder("ticket")
      .where("ticket.organization_id = :organizationId AND ticket.ticket_id = ANY(:ticketIds)", { organizationId: this.organizationId, ticketIds })
      .orderBy("ticket.id")
      .setLock("pessimistic_write")
      .getMany();
    for (const row of rows) this.byTicketId.set(row.ticketId, row);
  }

  find(ticketId: string): TicketEntity | undefined {
    return this.byTicketId.get(ticketId);
  }

  create(fields: NewTicketFields): TicketEntity {
    const ticket = Object.assign(new TicketEntity(), fields, {
      id: uuidv7(),
      organizationId: this.organizationId,
      checkedIn: false,
      invalidated: false,
      claimed: false,
      claimedTo: null,
      resales: 0,
    });
    this.byTicketId.set(ticket.ticketId, ticket);
    this.created.add(ticket);
    return ticket;
  }

  touch(ticket: TicketEntity): void {
    if (!this.created.has(ticket)) this.changed.add(ticket);
  }

  async flush(): Promise<void> {
    await this.insertCreated();
    await this.updateChanged();
  }

  private async insertCreated(): Promise<void> {
    await copyRows(
      this.manager,
      "tickets",
      // Every column: a ticket may have been scanned or claimed in the same request that sold it.
      ["id", "organization_id", "event_ref", "ticket_id", "serial", "token_id", "price", "uri", "order_time", "checked_in", "invalidated", "claimed", "claimed_to", "resales"],
      [...this.created].map((t) => [
        t.id,
        t.organizationId,
        t.eventRef,
        t.ticketId,
        t.serial,
        t.tokenId,
        t.price,
        t.uri,
        t.orderTime,
        t.checkedIn,
        t.invalidated,
        t.claimed,
        t.claimedTo,
        t.resales,
      ]),
    );
  }

  private async updateChanged(): Promise<void> {
    if (this.changed.size === 0) return;
    const t = [...this.changed];
    await this.manager.query(
      `UPDATE tickets AS x SET price = u.price, uri = u.uri, order_time = u.order_time, checked_in = u.checked_in,
              invalidated = u.invalidated, claimed = u.claimed, claimed_to = u.claimed_to, resales = u.resales, updated_at = now()
         FROM unnest($1::uuid[], $2::text[], $3::text[], $4::numeric[], $5::bool[], $6::bool[], $7::bool[], $8::text[], $9::int[])
           AS u(id, price, uri, order_time, checked_in, invalidated, claimed, claimed_to, resales)
        WHERE x.id = u.id`,
      [
        t.map((x) => x.id),
        t.map((x) => x.price),
        t.map((x) => x.uri),
        t.map((x) => x.orderTime.toString()),
        t.map((x) => x.checkedIn),
        t.map((x) => x.invalidated),
        t.map((x) => x.claimed),
        t.map((x) => x.claimedTo),
        t.map((x) => x.resales),
      ],
    );
  }
}
