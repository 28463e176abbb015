import type { AcceptanceContext, ItemOutcome } from "../ledger/acceptance-context";
import type { EventParts } from "./event-acceptance";
import { toUint64 } from "../common/validation/uint64";
import type { EventEntity } from "./entities/event.entity";
import type { CancelledEventDto } from "./dto/cancelled-event.dto";
import type { NewEventDto } from "./dto/new-event.dto";
import type { UpdateEventDto } from "./dto/update-event.dto";
import { cancelEventItem, registerEventItem, updateEventItem } from "./event-registry-items";
import { EventErrors } from "./events.errors";

/** The acceptance rules of event actions (their refusals: docs/integrators/api.md#errors), run in request order inside an acceptance. */
export function registerEvent(context: AcceptanceContext<EventParts>, input: NewEventDto, requestedAs: string): ItemOutcome {
  const { organization } = context;
  if (input.ticketeerId !== undefined && input.ticketeerId !== organization.ticketeerId) {
    return { error: EventErrors.ticketeerMismatch(input.ticketeerId) };
  }
  if (context.events.find(input.eventId)) return { error: EventErrors.exists(input.eventId) };
  const startTime = toUint64(input.startTime ?? 0);
  const endTime = toUint64(input.endTime ?? 0);
  if (endTime !== 0n && endTime < startTime) return { error: EventErrors.endBeforeStart() };

  const event = context.events.create({
    eventId: input.eventId,
    name: input.eventName ?? "",
    ticketeerName: input.ticketeerName ?? "",
    currency: input.currency,
    shopUrl: input.shopUrl ?? "",
    imageUrl: input.imageUrl ?? "",
    description: input.description ?? "",
    ticketImageUrl: input.ticketImageUrl ?? "",
    latitude: input.latitude ?? 0,
    longitude: input.longitude ?? 0,
    startTime,
    endTime,
    callbackUrl: input.callbackUrl,
  });
  const actionId = context.actions.record({
    kind: "newEvent",
    requestedAs,
    eventRef: event.id,
    eventIndex: event.eventIndex,
    ticketRef: null,
    onChain: registerEventItem(event, organization),
  });
  return { actionId };
}

const UPDATABLE_FIELDS = [
  "eventName",
  "ticketeerName",
  "currency",
  "shopUrl",
  "imageUrl",
  "description",
  "ticketImageUrl",
  "latitude",
  "longitude",
  "startTime",
  "endTime",
  "callbackUrl",
] as const;

export function updateEvent(context: AcceptanceContext<EventParts>, input: UpdateEventDto, requestedAs: string): ItemOutcome {
  if (!UPDATABLE_FIELDS.some((field) => input[field] !== undefined)) return { error: EventErrors.nothingToUpdate() };
  const event = context.events.find(input.eventId);
  if (!event) return { error: EventErrors.notFound(input.eventId) };
  const startTime = input.startTime === undefined ? event.startTime : toUint64(input.startTime);
  const endTime = input.endTime === undefined ? event.endTime : toUint64(input.endTime);
  if (endTime !== 0n && endTime < startTime) return { error: EventErrors.endBeforeStart() };

  applyUpdate(event, input, startTime, endTime);
  context.events.touch(event);
  // A change of what the tokens show goes on chain, off-chain metadata included (its hash is in the details); the callbackUrl stays here.
  const onChain = touchesChain(input) ? updateEventItem(event, context.organization) : null;
  const actionId = context.actions.record({ kind: "updateEvent", requestedAs, eventRef: event.id, eventIndex: event.eventIndex, ticketRef: null, onChain });
  return { actionId };
}

/**
 * Cancels the event in one action, whatever its tickets: none of them changes, every one reads as
 * cancelled through its event, and the ticket rules refuse what would change them. Its actions
 * accepted before go first, on chain too: acceptance order is the registry's.
 */
export function cancelEvent(context: AcceptanceContext<EventParts>, input: CancelledEventDto, requestedAs: string): ItemOutcome {
  const event = context.events.find(input.eventId);
  if (!event) return { error: EventErrors.notFound(input.eventId) };
  if (event.cancelledAt) return { error: EventErrors.cancelled(input.eventId) };

  event.cancelledAt = new Date(Number(context.now) * 1000);
  context.events.touch(event);
  const actionId = context.actions.record({
    kind: "cancelledEvent",
    requestedAs,
    eventRef: event.id,
    eventIndex: event.eventIndex,
    ticketRef: null,
    onChain: cancelEventItem(event),
  });
  return { actionId };
}

function applyUpdate(event: EventEntity, input: UpdateEventDto, startTime: bigint, endTime: bigint): void {
  event.name = input.eventName ?? event.name;
  event.ticketeerName = input.ticketeerName ?? event.ticketeerName;
  event.currency = input.currency ?? event.currency;
  event.shopUrl = input.shopUrl ?? event.shopUrl;
  event.imageUrl = input.imageUrl ?? event.imageUrl;
  event.description = input.description ?? event.description;
  event.ticketImageUrl = input.ticketImageUrl ?? event.ticketImageUrl;
  event.latitude = input.latitude ?? event.latitude;
  event.longitude = input.longitude ?? event.longitude;
  event.startTime = startTime;
  event.endTime = endTime;
  if (input.callbackUrl !== undefined) enableCallbackUrl(event, input.callbackUrl);
}

/** A callbackUrl given again, the same or another, is where callbacks go now: a disabled one is enabled again, its failures forgotten. */
function enableCallbackUrl(event: EventEntity, callbackUrl: string): void {
  event.callbackUrl = callbackUrl;
  event.callbackFailingSince = null;
  event.callbackDisabledAt = null;
}

/**
 * Whether an update changes what the event's tokens show: every field but the callbackUrl does, on
 * chain or in the off-chain metadata whose hash the details carry, so it goes on chain and the
 * registry tells wallets (ERC-4906 over every token of the event). A callbackUrl alone stays here.
 */
export function touchesChain(input: UpdateEventDto): boolean {
  return UPDATABLE_FIELDS.some((field) => field !== "callbackUrl" && input[field] !== undefined);
}
