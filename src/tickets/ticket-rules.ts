import { getAddress } from "ethers";

import type { AcceptanceContext, ItemOutcome } from "../ledger/acceptance-context";
import type { TicketParts } from "./ticket-acceptance";
import { hasTicketMetadata, type RegistryBatchItem, splitTokenId, ticketHashOf, ticketMetadataHash, tokenIdOf } from "../registry";
import type { ChainActionKind } from "../ledger/chain-action-kind";
import { EventErrors } from "../events/events.errors";
import { invalidField } from "../common/errors/error-detail";
import { toUint64 } from "../common/validation/uint64";
import type { ClaimedTicketDto } from "./dto/claimed-ticket.dto";
import type { ResoldTicketDto } from "./dto/resold-ticket.dto";
import type { SoldTicketDto } from "./dto/sold-ticket.dto";
import type { TicketMomentDto } from "./dto/ticket-moment.dto";
import type { UpdateTicketDto } from "./dto/update-ticket.dto";
import type { TicketEntity } from "./entities/ticket.entity";
import { acceptedAttributes } from "./ticket-attributes";
import { ticketMetadataOf } from "./ticket-metadata";
import { TicketErrors } from "./tickets.errors";

/** The acceptance rules of ticket actions (their refusals: docs/integrators/api.md#errors), run in request order inside an acceptance. */
export function sellTicket(context: AcceptanceContext<TicketParts>, input: SoldTicketDto, requestedAs: string): ItemOutcome {
  const event = context.events.find(input.eventId);
  if (!event) return { error: EventErrors.notFound(input.eventId) };
  if (event.cancelledAt) return { error: EventErrors.cancelled(input.eventId) };
  if (context.tickets.find(input.ticketId)) return { error: TicketErrors.exists(input.ticketId) };

  const serial = context.events.sell(event);
  const orderTime = orderTimeOf(context, input.orderTime);
  const tokenId = tokenIdOf(event.eventIndex, serial);
  const ticket = context.tickets.create({
    eventRef: event.id,
    ticketId: input.ticketId,
    serial,
    tokenId,
    price: input.price,
    uri: input.uri ?? "",
    name: input.name ?? "",
    description: input.description ?? "",
    animationUrl: input.animationUrl ?? "",
    attributes: input.attributes ? acceptedAttributes(input.attributes) : [],
    orderTime,
  });
  return record(context, "sold", requestedAs, ticket, saleItem(ticket, ticketHashOf(input.ticketId), orderTime));
}

/**
 * A sale goes with its ticket's metadata hash only when the ticket has metadata of its own: a sale
 * without any costs what it did before metadata existed, and records nothing (no hash of an empty document).
 */
function saleItem(ticket: TicketEntity, ticketHash: string, orderTime: bigint): RegistryBatchItem {
  const sale = { tokenId: ticket.tokenId, ticketHash, price: ticket.price, orderTime };
  const metadata = ticketMetadataOf(ticket);
  return hasTicketMetadata(metadata) ? { action: "soldWithMetadata", ...sale, metadataHash: ticketMetadataHash(metadata) } : { action: "sold", ...sale };
}

export function resellTicket(context: AcceptanceContext<TicketParts>, input: ResoldTicketDto, requestedAs: string): ItemOutcome {
  const ticket = context.tickets.find(input.ticketId);
  if (!ticket) return { error: TicketErrors.notFound(input.ticketId) };
  if (eventCancelled(context, ticket)) return { error: TicketErrors.eventCancelled(input.ticketId) };
  if (ticket.claimed) return { error: TicketErrors.claimed(input.ticketId) };
  if (ticket.checkedIn) return { error: TicketErrors.checkedIn(input.ticketId) };
  if (ticket.invalidated) return { error: TicketErrors.invalidated(input.ticketId) };

  const orderTime = orderTimeOf(context, input.orderTime);
  ticket.resales += 1;
  ticket.price = input.price;
  ticket.orderTime = orderTime;
  return record(context, "resold", requestedAs, ticket, { action: "resold", tokenId: ticket.tokenId, price: input.price, orderTime });
}

/** Check-in is one-way; a repeated scan is accepted and recorded again. */
export function checkInTicket(context: AcceptanceContext<TicketParts>, input: TicketMomentDto, requestedAs: string): ItemOutcome {
  const ticket = context.tickets.find(input.ticketId);
  if (!ticket) return { error: TicketErrors.notFound(input.ticketId) };
  if (eventCancelled(context, ticket)) return { error: TicketErrors.eventCancelled(input.ticketId) };
  if (ticket.invalidated) return { error: TicketErrors.invalidated(input.ticketId) };

  const orderTime = orderTimeOf(context, input.orderTime);
  ticket.checkedIn = true;
  return record(context, "scanned", requestedAs, ticket, { action: "checkedIn", tokenId: ticket.tokenId, orderTime });
}

export function invalidateTicket(context: AcceptanceContext<TicketParts>, input: TicketMomentDto, requestedAs: string): ItemOutcome {
  const ticket = context.tickets.find(input.ticketId);
  if (!ticket) return { error: TicketErrors.notFound(input.ticketId) };
  if (eventCancelled(context, ticket)) return { error: TicketErrors.eventCancelled(input.ticketId) };
  if (ticket.checkedIn) return { error: TicketErrors.checkedIn(input.ticketId) };
  if (ticket.invalidated) return { error: TicketErrors.invalidated(input.ticketId) };

  const orderTime = orderTimeOf(context, input.orderTime);
  ticket.invalidated = true;
  return record(context, "invalidated", requestedAs, ticket, { action: "invalidated", tokenId: ticket.tokenId, orderTime });
}

const UPDATABLE_FIELDS = ["uri", "name", "description", "animationUrl", "attributes"] as const;

/**
 * The fields given replace the stored ones, those left out keep theirs. The registry records the hash
 * of the ticket's metadata after the change, and tells wallets (ERC-4906). It refuses the update of a
 * ticket of a cancelled event, and so is it refused here.
 */
export function updateTicket(context: AcceptanceContext<TicketParts>, input: UpdateTicketDto, requestedAs: string): ItemOutcome {
  if (!UPDATABLE_FIELDS.some((field) => input[field] !== undefined)) return { error: TicketErrors.nothingToUpdate() };
  const ticket = context.tickets.find(input.ticketId);
  if (!ticket) return { error: TicketErrors.notFound(input.ticketId) };
  if (eventCancelled(context, ticket)) return { error: TicketErrors.eventCancelled(input.ticketId) };
  if (ticket.invalidated) return { error: TicketErrors.invalidated(input.ticketId) };

  ticket.uri = input.uri ?? ticket.uri;
  ticket.name = input.name ?? ticket.name;
  ticket.description = input.description ?? ticket.description;
  ticket.animationUrl = input.animationUrl ?? ticket.animationUrl;
  if (input.attributes !== undefined) ticket.attributes = acceptedAttributes(input.attributes);
  const metadataHash = ticketMetadataHash(ticketMetadataOf(ticket));
  return record(context, "updateTicket", requestedAs, ticket, { action: "updateTicket", tokenId: ticket.tokenId, metadataHash });
}

export function claimTicket(context: AcceptanceContext<TicketParts>, input: ClaimedTicketDto, requestedAs: string): ItemOutcome {
  const ticket = context.tickets.find(input.ticketId);
  if (!ticket) return { error: TicketErrors.notFound(input.ticketId) };
  if (eventCancelled(context, ticket)) return { error: TicketErrors.eventCancelled(input.ticketId) };
  if (ticket.invalidated) return { error: TicketErrors.invalidated(input.ticketId) };
  if (ticket.claimed) return { error: TicketErrors.claimed(input.ticketId) };
  if (!ticket.checkedIn) return { error: TicketErrors.notCheckedIn(input.ticketId) };

  const to = getAddress(input.to);
  const receiverRefusal = context.receivers.refusalOf(to);
  if (receiverRefusal) return { error: invalidField("to", receiverRefusal) };
  ticket.claimed = true;
  ticket.claimedTo = to;
  return record(context, "claimed", requestedAs, ticket, { action: "claimed", tokenId: ticket.tokenId, to });
}

/**
 * Whether the ticket's event is cancelled: then it can no longer be resold, checked in, invalidated,
 * claimed or have its metadata changed (the registry refuses them too).
 */
function eventCancelled(context: AcceptanceContext<TicketParts>, ticket: TicketEntity): boolean {
  return context.events.findByRef(ticket.eventRef)?.cancelledAt != null;
}

function record(
  context: AcceptanceContext<TicketParts>,
  kind: ChainActionKind,
  requestedAs: string,
  ticket: TicketEntity,
  onChain: Parameters<AcceptanceContext<TicketParts>["actions"]["record"]>[0]["onChain"],
): ItemOutcome {
  context.tickets.touch(ticket);
  const eventIndex = splitTokenId(ticket.tokenId).eventIndex;
  const actionId = context.actions.record({ kind, requestedAs, eventRef: ticket.eventRef, eventIndex, ticketRef: ticket.id, onChain });
  return { actionId };
}

function orderTimeOf(context: AcceptanceContext<TicketParts>, orderTime: number | string | undefined): bigint {
  return orderTime === undefined ? context.now : toUint64(orderTime);
}
