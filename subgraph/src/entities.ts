import { BigInt, Bytes, ethereum } from "@graphprotocol/graph-ts";

import { Event, EventDay, Registry, Ticket } from "../generated/schema";
import { dayOf, SECONDS_PER_DAY } from "./records";

const SERIAL_BITS: u8 = 64;

/** tokenId = eventIndex << 64 | serial. */
export function tokenIdOf(eventIndex: u64, serial: u64): BigInt {
  return BigInt.fromU64(eventIndex).leftShift(SERIAL_BITS).bitOr(BigInt.fromU64(serial));
}

/** The high 64 bits of a tokenId. */
export function eventIndexOf(tokenId: BigInt): BigInt {
  return tokenId.rightShift(SERIAL_BITS);
}

/** A log's own id; `part` numbers the records of a packed log. */
export function logId(event: ethereum.Event, part: i32 = 0): Bytes {
  return event.transaction.hash.concatI32(event.logIndex.toI32()).concatI32(part);
}

export function registryOf(event: ethereum.Event): Registry {
  let registry = Registry.load(event.address);
  if (registry == null) {
    registry = new Registry(event.address);
    registry.baseURI = "";
    registry.contractURI = "";
    registry.paused = false;
    registry.events = BigInt.zero();
    registry.ticketsSold = BigInt.zero();
  }
  return registry;
}

/**
 * The ticket of `tokenId`, created on its first log: within a sale's transaction the Transfer, TicketSold and a
 * sale's TicketsMetadataUpdated record each may come first. Null when its event was never registered.
 */
export function ticketOf(tokenId: BigInt): Ticket | null {
  const id = tokenId.toString();
  let ticket = Ticket.load(id);
  if (ticket != null) return ticket;
  const event = Event.load(eventIndexOf(tokenId).toString());
  if (event == null) return null;
  ticket = new Ticket(id);
  ticket.tokenId = tokenId;
  ticket.event = event.id;
  ticket.serial = tokenId.bitAnd(BigInt.fromU64(u64.MAX_VALUE));
  ticket.holder = event.custody;
  ticket.checkedIn = false;
  ticket.invalidated = false;
  ticket.claimed = false;
  ticket.resales = 0;
  ticket.eventCancelled = event.cancelled;
  return ticket;
}

/** The daily counts of `eventId` for the day of the log's block. */
export function eventDayOf(eventId: string, block: ethereum.Block): EventDay {
  const day = dayOf(block.timestamp.toU64());
  const id = eventId + "-" + day.toString();
  let entry = EventDay.load(id);
  if (entry == null) {
    entry = new EventDay(id);
    entry.event = eventId;
    entry.day = <i32>day;
    entry.date = BigInt.fromU64(day * SECONDS_PER_DAY);
    entry.sold = 0;
    entry.resales = 0;
    entry.checkedIn = 0;
    entry.invalidated = 0;
    entry.claimed = 0;
    entry.metadataUpdates = 0;
  }
  return entry;
}
