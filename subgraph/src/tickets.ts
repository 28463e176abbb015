import { Address, BigInt, Bytes, ethereum } from "@graphprotocol/graph-ts";

import { Event, Sale, Ticket, TicketMetadataUpdate, TicketRecord, Transfer as TransferEntity } from "../generated/schema";
import { TicketResold, TicketSold, TicketsCheckedIn, TicketsInvalidated, TicketsMetadataUpdated, Transfer } from "../generated/TicketRegistry/TicketRegistry";
import { eventDayOf, logId, registryOf, ticketOf, tokenIdOf } from "./entities";
import {
  custodyMaskOf,
  inCustodialSpace,
  METADATA_RECORD_BYTES,
  recordCount,
  recordEventIndex,
  recordMetadataHash,
  recordOrderTime,
  recordSerial,
  TIME_RECORD_BYTES,
} from "./records";

const CHECK_IN = "checkIn";
const INVALIDATION = "invalidation";

export function handleTicketSold(log: TicketSold): void {
  const ticket = ticketOf(log.params.tokenId);
  if (ticket == null) return;
  ticket.ticketHash = log.params.ticketHash;
  ticket.price = log.params.price;
  ticket.soldAt = log.params.orderTime;
  ticket.save();
  recordSale(log, ticket, 0, log.params.price, log.params.orderTime);

  const event = Event.load(ticket.event)!;
  event.ticketsSold += 1;
  event.save();
  const day = eventDayOf(event.id, log.block);
  day.sold += 1;
  day.save();
  const registry = registryOf(log);
  registry.ticketsSold = registry.ticketsSold.plus(BigInt.fromI32(1));
  registry.save();
}

export function handleTicketResold(log: TicketResold): void {
  const ticket = ticketOf(log.params.tokenId);
  if (ticket == null) return;
  ticket.resales = log.params.resales.toI32();
  ticket.price = log.params.price;
  ticket.save();
  recordSale(log, ticket, ticket.resales, log.params.price, log.params.orderTime);

  const event = Event.load(ticket.event)!;
  event.resales += 1;
  event.save();
  const day = eventDayOf(event.id, log.block);
  day.resales += 1;
  day.save();
}

export function handleTicketsCheckedIn(log: TicketsCheckedIn): void {
  applyTimeRecords(log, log.params.records, CHECK_IN);
}

export function handleTicketsInvalidated(log: TicketsInvalidated): void {
  applyTimeRecords(log, log.params.records, INVALIDATION);
}

export function handleTicketsMetadataUpdated(log: TicketsMetadataUpdated): void {
  const records = log.params.records;
  const count = recordCount(records, METADATA_RECORD_BYTES);
  for (let i = 0; i < count; i++) {
    const ticket = ticketOf(tokenIdOf(recordEventIndex(records, METADATA_RECORD_BYTES, i), recordSerial(records, METADATA_RECORD_BYTES, i)));
    if (ticket == null) continue;
    const hash = Bytes.fromUint8Array(recordMetadataHash(records, i));
    ticket.metadataHash = hash;
    ticket.save();

    const update = new TicketMetadataUpdate(logId(log, i));
    update.ticket = ticket.id;
    update.metadataHash = hash;
    update.timestamp = log.block.timestamp;
    update.transactionHash = log.transaction.hash;
    update.save();

    const event = Event.load(ticket.event)!;
    event.metadataUpdates += 1;
    event.save();
    const day = eventDayOf(event.id, log.block);
    day.metadataUpdates += 1;
    day.save();
  }
}

/**
 * Mints go to the event's custody address, resales between custodial addresses, a claim from one to a wallet
 * (the registry's custodial address space, from the event's custody address), and then wallets trade freely.
 */
export function handleTransfer(log: Transfer): void {
  const ticket = ticketOf(log.params.tokenId);
  if (ticket == null) return;
  const event = Event.load(ticket.event)!;
  const mask = custodyMaskOf(event.custody, event.eventIndex.toU64());
  const fromCustody = inCustodialSpace(mask, log.params.from);
  const toCustody = inCustodialSpace(mask, log.params.to);
  let kind = "wallet";
  if (log.params.from.equals(Address.zero())) kind = "mint";
  else if (fromCustody && toCustody) kind = "resale";
  else if (fromCustody) kind = "claim";

  ticket.holder = log.params.to;
  if (kind == "claim" && !ticket.claimed) {
    ticket.claimed = true;
    ticket.claimedAt = log.block.timestamp;
    event.claimed += 1;
    event.save();
    const day = eventDayOf(event.id, log.block);
    day.claimed += 1;
    day.save();
  }
  ticket.save();

  const transfer = new TransferEntity(logId(log));
  transfer.ticket = ticket.id;
  transfer.from = log.params.from;
  transfer.to = log.params.to;
  transfer.kind = kind;
  transfer.blockNumber = log.block.number;
  transfer.timestamp = log.block.timestamp;
  transfer.transactionHash = log.transaction.hash;
  transfer.save();
}

function recordSale(log: ethereum.Event, ticket: Ticket, resale: i32, price: BigInt, orderTime: BigInt): void {
  const sale = new Sale(logId(log));
  sale.ticket = ticket.id;
  sale.resale = resale;
  sale.price = price;
  sale.orderTime = orderTime;
  sale.timestamp = log.block.timestamp;
  sale.transactionHash = log.transaction.hash;
  sale.save();
}

/** A run of check-ins or invalidations: each record sets its ticket's flag; a repeat changes nothing. */
function applyTimeRecords(log: ethereum.Event, records: Bytes, kind: string): void {
  const count = recordCount(records, TIME_RECORD_BYTES);
  for (let i = 0; i < count; i++) {
    const ticket = ticketOf(tokenIdOf(recordEventIndex(records, TIME_RECORD_BYTES, i), recordSerial(records, TIME_RECORD_BYTES, i)));
    if (ticket == null) continue;
    const orderTime = BigInt.fromU64(recordOrderTime(records, i));
    const changed = kind == CHECK_IN ? !ticket.checkedIn : !ticket.invalidated;
    if (changed) countRecord(log, ticket, kind);
    if (kind == CHECK_IN) {
      ticket.checkedIn = true;
      if (changed) ticket.checkedInAt = orderTime;
    } else {
      ticket.invalidated = true;
      if (changed) ticket.invalidatedAt = orderTime;
    }
    ticket.save();

    const record = new TicketRecord(logId(log, i));
    record.ticket = ticket.id;
    record.kind = kind;
    record.orderTime = orderTime;
    record.changed = changed;
    record.timestamp = log.block.timestamp;
    record.transactionHash = log.transaction.hash;
    record.save();
  }
}

function countRecord(log: ethereum.Event, ticket: Ticket, kind: string): void {
  const event = Event.load(ticket.event)!;
  const day = eventDayOf(event.id, log.block);
  if (kind == CHECK_IN) {
    event.checkedIn += 1;
    day.checkedIn += 1;
  } else {
    event.invalidated += 1;
    day.invalidated += 1;
  }
  event.save();
  day.save();
}
