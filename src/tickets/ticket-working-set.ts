import { randomUUID } from "node:crypto";

import type { EntityManager } from "typeorm";

import { AcceptanceConflict } from "../chain/ledger/acceptance-conflict";
import { TicketEntity } from "./entities/ticket.entity";

export type NewTicketFields = Pick<TicketEntity, "eventRef" | "ticketId" | "serial" | "tokenId" | "price" | "uri" | "orderTime">;

/**
 * The tickets one acceptance reads and writes. Existing rows are locked in id order (no deadlocks
 * between requests); rows it creates are inserted in one statement, and a ticketId another request
 * created meanwhile makes the acceptance start over.
 */
export class TicketWorkingSet {
  private readonly byTicketId = new Map<string, TicketEntity>();
  private readonly created: TicketEntity[] = [];
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
      id: randomUUID(),
      organizationId: this.organizationId,
      checkedIn: false,
      invalidated: false,
      claimed: false,
      claimedTo: null,
      resales: 0,
    });
    this.byTicketId.set(ticket.ticketId, ticket);
    this.created.push(ticket);
    return ticket;
  }

  touch(ticket: TicketEntity): void {
    if (!this.created.includes(ticket)) this.changed.add(ticket);
  }

  async flush(): Promise<void> {
    await this.insertCreated();
    await this.updateChanged();
  }

  private async insertCreated(): Promise<void> {
    if (this.created.length === 0) return;
    const t = this.created;
    const inserted = (await this.manager.query(
      `INSERT INTO tickets (id, organization_id, event_ref, ticket_id, serial, token_id, price, uri, order_time,
                            checked_in, invalidated, claimed, claimed_to, resales)
       SELECT * FROM unnest($1::uuid[], $2::uuid[], $3::uuid[], $4::text[], $5::bigint[], $6::numeric[], $7::text[], $8::text[],
                            $9::numeric[], $10::bool[], $11::bool[], $12::bool[], $13::text[], $14::int[])
       ON CONFLICT (organization_id, ticket_id) DO NOTHING
       RETURNING id`,
      [
        t.map((x) => x.id),
        t.map((x) => x.organizationId),
        t.map((x) => x.eventRef),
        t.map((x) => x.ticketId),
        t.map((x) => x.serial.toString()),
        t.map((x) => x.tokenId.toString()),
        t.map((x) => x.price),
        t.map((x) => x.uri),
        t.map((x) => x.orderTime.toString()),
        t.map((x) => x.checkedIn),
        t.map((x) => x.invalidated),
        t.map((x) => x.claimed),
        t.map((x) => x.claimedTo),
        t.map((x) => x.resales),
      ],
    )) as unknown[];
    if (inserted.length !== t.length) throw new AcceptanceConflict("a ticket");
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
