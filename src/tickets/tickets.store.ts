import { type EntityManager, IsNull } from "typeorm";

import { copyRows } from "../database/copy-rows";
import { TicketEntity } from "./entities/ticket.entity";

/**
 * The SQL of tickets. Bound to an EntityManager: the acceptance's transaction manager for writes
 * and locked reads, the data source's manager for plain reads.
 */
export class TicketsStore {
  constructor(private readonly manager: EntityManager) {}

  findByOrganizationAndTicketId(organizationId: string, ticketId: string): Promise<TicketEntity | null> {
    return this.manager.getRepository(TicketEntity).findOneBy({ organizationId, ticketId, releasedAt: IsNull() });
  }

  /** Up to `limit` of the organization's tickets held by `holder` (checksummed), in tokenId order after `afterTokenId`. */
  pageByHolder(organizationId: string, holder: string, afterTokenId: bigint, limit: number): Promise<TicketEntity[]> {
    return this.manager
      .getRepository(TicketEntity)
      .createQueryBuilder("ticket")
      .where("ticket.organization_id = :organizationId AND ticket.holder = :holder AND ticket.token_id > :after", {
        organizationId,
        holder,
        after: afterTokenId.toString(),
      })
      .orderBy("ticket.token_id", "ASC")
      .limit(limit)
      .getMany();
  }

  /** The organization's tickets among `ticketIds`, locked for update in id order (no deadlocks between acceptances). */
  lockForAcceptance(organizationId: string, ticketIds: readonly string[]): Promise<TicketEntity[]> {
    if (ticketIds.length === 0) return Promise.resolve([]);
    return this.manager
      .getRepository(TicketEntity)
      .createQueryBuilder("ticket")
      .where("ticket.organization_id = :organizationId AND ticket.ticket_id = ANY(:ticketIds) AND ticket.released_at IS NULL", { organizationId, ticketIds })
      .orderBy("ticket.id")
      .setLock("pessimistic_write")
      .getMany();
  }

  /**
   * Copies new tickets in one statement, every column: a ticket may have been checked in or claimed
   * in the request that sold it. A ticketId another acceptance created meanwhile is a unique violation.
   */
  async insertNew(tickets: readonly TicketEntity[]): Promise<void> {
    await copyRows(
      this.manager,
      "tickets",
      [
        "id",
        "organization_id",
        "event_ref",
        "ticket_id",
        "serial",
        "token_id",
        "price",
        "uri",
        "name",
        "description",
        "animation_url",
        "attributes",
        "order_time",
        "checked_in",
        "invalidated",
        "claimed",
        "claimed_to",
        "resales",
      ],
      tickets.map((t) => [
        t.id,
        t.organizationId,
        t.eventRef,
        t.ticketId,
        t.serial,
        t.tokenId,
        t.price,
        t.uri,
        t.name,
        t.description,
        t.animationUrl,
        JSON.stringify(t.attributes),
        t.orderTime,
        t.checkedIn,
        t.invalidated,
        t.claimed,
        t.claimedTo,
        t.resales,
      ]),
    );
  }

  /** Writes the accepted state of changed tickets. */
  async saveChanges(tickets: readonly TicketEntity[]): Promise<void> {
    if (tickets.length === 0) return;
    await this.manager.query(
      `UPDATE tickets AS x SET price = u.price, uri = u.uri, order_time = u.order_time, checked_in = u.checked_in,
              invalidated = u.invalidated, claimed = u.claimed, claimed_to = u.claimed_to, resales = u.resales,
              name = u.name, description = u.description, animation_url = u.animation_url, attributes = u.attributes, updated_at = now()
         FROM unnest($1::uuid[], $2::text[], $3::text[], $4::numeric[], $5::bool[], $6::bool[], $7::bool[], $8::text[], $9::int[],
                     $10::text[], $11::text[], $12::text[], $13::jsonb[])
           AS u(id, price, uri, order_time, checked_in, invalidated, claimed, claimed_to, resales, name, description, animation_url, attributes)
        WHERE x.id = u.id`,
      [
        tickets.map((x) => x.id),
        tickets.map((x) => x.price),
        tickets.map((x) => x.uri),
        tickets.map((x) => x.orderTime.toString()),
        tickets.map((x) => x.checkedIn),
        tickets.map((x) => x.invalidated),
        tickets.map((x) => x.claimed),
        tickets.map((x) => x.claimedTo),
        tickets.map((x) => x.resales),
        tickets.map((x) => x.name),
        tickets.map((x) => x.description),
        tickets.map((x) => x.animationUrl),
        tickets.map((x) => JSON.stringify(x.attributes)),
      ],
    );
  }
}
