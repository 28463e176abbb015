import { Injectable } from "@nestjs/common";
import { InjectDataSource } from "@nestjs/typeorm";
import { DataSource } from "typeorm";

import { ChainActionsStore } from "../ledger/chain-actions.store";
import { toActionView } from "../ledger/dto/action-view.dto";
import type { ChainAction } from "../ledger/entities/chain-action.entity";
import { ApiError } from "../common/errors/api-error";
import { uint64Json } from "../common/validation/uint64";
import type { EventEntity } from "../events/entities/event.entity";
import { EventsStore } from "../events/events.store";
import type { TicketPageDto, TicketViewDto } from "./dto/ticket-view.dto";
import type { TicketEntity } from "./entities/ticket.entity";
import type { HolderQuery } from "./holder-query";
import { TicketErrors } from "./tickets.errors";
import { TicketsStore } from "./tickets.store";

@Injectable()
export class TicketsService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly actions: ChainActionsStore,
  ) {}

  /** The promise of each ticket's sale (its `sold` action), by ticketId: what a retried sale is told. */
  async salePromises(organizationId: string, ticketIds: readonly string[]): Promise<Map<string, string>> {
    if (ticketIds.length === 0) return new Map();
    const rows = await this.dataSource.query<{ ticket_id: string; id: string }[]>(
      `SELECT t.ticket_id, a.id FROM tickets t JOIN chain_actions a ON a.ticket_ref = t.id AND a.kind = 'sold'
       WHERE t.organization_id = $1 AND t.ticket_id = ANY($2::text[]) AND t.released_at IS NULL`,
      [organizationId, [...new Set(ticketIds)]],
    );
    return new Map(rows.map((row) => [row.ticket_id, row.id]));
  }

  async view(organizationId: string, ticketId: string): Promise<TicketViewDto> {
    const ticket = await new TicketsStore(this.dataSource.manager).findByOrganizationAndTicketId(organizationId, ticketId);
    if (!ticket) throw new ApiError(404, TicketErrors.notFound(ticketId));
    const [view] = await this.views([ticket]);
    return view;
  }

  /** A page of the organization's tickets whose token `query.holder` holds, in tokenId order. */
  async byHolder(organizationId: string, query: HolderQuery): Promise<TicketPageDto> {
    const page = await new TicketsStore(this.dataSource.manager).pageByHolder(organizationId, query.holder, query.afterTokenId, query.limit + 1);
    const tickets = page.slice(0, query.limit);
    const more = page.length > query.limit;
    return { data: await this.views(tickets), nextCursor: more ? query.cursorAfter(tickets[tickets.length - 1].tokenId) : null };
  }

  /** The views of these tickets, their events and actions read in one query each. */
  private async views(tickets: readonly TicketEntity[]): Promise<TicketViewDto[]> {
    const eventRefs = [...new Set(tickets.map((ticket) => ticket.eventRef))];
    const [events, actions, cancelledOnChain] = await Promise.all([
      new EventsStore(this.dataSource.manager).findByIds(eventRefs),
      this.actions.listForTickets(tickets.map((ticket) => ticket.id)),
      this.actions.confirmedCancellations(eventRefs),
    ]);
    const eventsById = new Map(events.map((event) => [event.id, event]));
    return tickets.map((ticket) =>
      viewOf(ticket, eventsById.get(ticket.eventRef) as EventEntity, actions.get(ticket.id) ?? [], cancelledOnChain.has(ticket.eventRef)),
    );
  }
}

function viewOf(ticket: TicketEntity, event: EventEntity, actions: ChainAction[], eventCancelledOnChain: boolean): TicketViewDto {
  return {
    ticketId: ticket.ticketId,
    eventId: event.eventId,
    state: stateOf(ticket, event),
    checkedIn: ticket.checkedIn,
    invalidated: ticket.invalidated,
    claimed: ticket.claimed,
    eventCancelled: event.cancelledAt !== null,
    claimedTo: ticket.claimedTo,
    holder: ticket.holder,
    resales: ticket.resales,
    price: ticket.price,
    uri: ticket.uri,
    name: ticket.name,
    description: ticket.description,
    animationUrl: ticket.animationUrl,
    attributes: ticket.attributes,
    orderTime: uint64Json(ticket.orderTime),
    chain: {
      tokenId: ticket.tokenId.toString(),
      eventIndex: uint64Json(event.eventIndex),
      serial: uint64Json(ticket.serial),
      minted: confirmed(actions, "sold"),
      checkedIn: confirmed(actions, "scanned"),
      invalidated: confirmed(actions, "invalidated"),
      claimed: confirmed(actions, "claimed"),
      eventCancelled: eventCancelledOnChain,
    },
    actions: actions.map(toActionView),
  };
}

function stateOf(ticket: TicketEntity, event: EventEntity): TicketViewDto["state"] {
  if (event.cancelledAt !== null) return "event_cancelled";
  if (ticket.claimed) return "claimed";
  if (ticket.invalidated) return "invalidated";
  if (ticket.checkedIn) return "checked_in";
  return "valid";
}

function confirmed(actions: ChainAction[], kind: ChainAction["kind"]): boolean {
  return actions.some((action) => action.kind === kind && action.status === "confirmed");
}
