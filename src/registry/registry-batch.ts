import { concat, getAddress, getBytes, toBeHex, toUtf8Bytes } from "ethers";

import { BATCH_ITEM_CODE, type BatchItemName } from "../common/actions";
import { encodePrice } from "./registry-price";
import { fromFixedCoordinate, toFixedCoordinate } from "./registry-coordinates";

/** The name of every item of the batch wire format. */
export type RegistryBatchItemName = BatchItemName;

/** Action codes of the batch wire format (contracts/libraries/BatchReader.sol), from the ACTIONS table. */
export const BatchActionCode: Readonly<Record<RegistryBatchItemName, number>> = BATCH_ITEM_CODE;

export interface RegistryEventDetails {
  name: string;
  currency: string;
  shopUrl: string;
  imageUrl: string;
  /** Degrees; recorded with 7 decimals. */
  latitude: number;
  longitude: number;
  startTime: bigint;
  endTime: bigint;
  /** The organizing company's public name: what a ticket's metadata shows as its organizer. */
  organizer: string;
  /** keccak-256 of the event's canonical off-chain metadata (description, ticket image), 0x-hex; ZeroHash when none. */
  metadataHash: string;
}

/** EventDetails as the registry's EventRegistered and EventUpdated logs decode them: coordinates in its fixed point. */
export interface RegistryEventDetailsLog extends Omit<RegistryEventDetails, "latitude" | "longitude"> {
  latitude: bigint;
  longitude: bigint;
}

/** Logged event details with their coordinates in degrees. */
export function eventDetailsOf(logged: RegistryEventDetailsLog): RegistryEventDetails {
  const { name, currency, shopUrl, imageUrl, latitude, longitude, startTime, endTime, organizer, metadataHash } = logged;
  return {
    name,
    currency,
    shopUrl,
    imageUrl,
    latitude: fromFixedCoordinate(latitude),
    longitude: fromFixedCoordinate(longitude),
    startTime,
    endTime,
    organizer,
    metadataHash,
  };
}

export type RegistryBatchItem =
  | { action: "registerEvent"; eventIndex: bigint; eventKey: string; ticketeer: string; details: RegistryEventDetails }
  | { action: "updateEvent"; eventIndex: bigint; details: RegistryEventDetails }
  | { action: "sold"; tokenId: bigint; ticketHash: string; price: string; orderTime: bigint }
  | { action: "resold"; tokenId: bigint; price: string; orderTime: bigint }
  | { action: "checkedIn"; tokenId: bigint; orderTime: bigint }
  | { action: "invalidated"; tokenId: bigint; orderTime: bigint }
  | { action: "claimed"; tokenId: bigint; to: string }
  | { action: "cancelEvent"; eventIndex: bigint }
  | TicketMetadataItem;

/**
 * A ticket's metadata hash (keccak-256 of its canonical off-chain metadata, 0x-hex: metadata-hash.ts), alone or
 * with its sale's fields.
 */
export type TicketMetadataItem =
  | { action: "updateTicket"; tokenId: bigint; metadataHash: string }
  | { action: "soldWithMetadata"; tokenId: bigint; ticketHash: string; price: string; orderTime: bigint; metadataHash: string };

/** Every item the batch wire format holds. */
export type RegistryWireItem = RegistryBatchItem;

// The union above names the items of the ACTIONS table: a row without its item shape, or an item
// without its row, fails here.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const itemsMatchTheTable: Same<RegistryBatchItem["action"], BatchItemName> = true;
void itemsMatchTheTable;

/** Packs items, in order, into the bytes `TicketRegistry.execute` takes. */
export function encodeBatch(items: readonly RegistryWireItem[]): string {
  return concat(items.map(encodeItem));
}

/** How many bytes one item adds to a batch. */
export function encodedItemBytes(item: RegistryWireItem): number {
  return (encodeItem(item).length - 2) / 2;
}

/** One item's bytes, as a 0x-prefixed hex string. */
export function encodeItem(item: RegistryWireItem): string {
  const code = uint(BatchActionCode[item.action], 1);
  switch (item.action) {
    case "registerEvent":
      return concat([code, uint(item.eventIndex, 8), bytes32(item.eventKey), bytes32(item.ticketeer), details(item.details)]);
    case "updateEvent":
      return concat([code, uint(item.eventIndex, 8), details(item.details)]);
    case "sold":
      return concat([code, sale(item)]);
    case "soldWithMetadata":
      return concat([code, sale(item), bytes32(item.metadataHash)]);
    case "updateTicket":
      return concat([code, uint(item.tokenId, 16), bytes32(item.metadataHash)]);
    case "resold":
      return concat([code, uint(item.tokenId, 16), uint(encodePrice(item.price), 16), uint(item.orderTime, 8)]);
    case "checkedIn":
    case "invalidated":
      return concat([code, uint(item.tokenId, 16), uint(item.orderTime, 8)]);
    case "claimed":
      return concat([code, uint(item.tokenId, 16), getBytes(getAddress(item.to))]);
    case "cancelEvent":
      return concat([code, uint(item.eventIndex, 8)]);
  }
}

/** A sale's fields, the same in a sale with its metadata. */
function sale(item: { tokenId: bigint; ticketHash: string; price: string; orderTime: bigint }): string {
  return concat([uint(item.tokenId, 16), bytes32(item.ticketHash), uint(encodePrice(item.price), 16), uint(item.orderTime, 8)]);
}

function details(value: RegistryEventDetails): string {
  return concat([
    int32(toFixedCoordinate(value.latitude, 90)),
    int32(toFixedCoordinate(value.longitude, 180)),
    uint(value.startTime, 8),
    uint(value.endTime, 8),
    text(value.currency),
    text(value.name),
    text(value.shopUrl),
    text(value.imageUrl),
    text(value.organizer),
    bytes32(value.metadataHash),
  ]);
}

function text(value: string): string {
  const utf8 = toUtf8Bytes(value);
  if (utf8.length > 0xffff) throw new RangeError(`text of ${utf8.length} bytes exceeds 65535`);
  return concat([uint(utf8.length, 2), utf8]);
}

function uint(value: bigint | number, size: number): Uint8Array {
  const big = BigInt(value);
  if (big < 0n || big >= 1n << BigInt(size * 8)) throw new RangeError(`${value} does not fit in ${size} bytes`);
  return getBytes(toBeHex(big, size));
}

function int32(value: number): Uint8Array {
  return uint(BigInt.asUintN(32, BigInt(value)), 4);
}

function bytes32(value: string): Uint8Array {
  const raw = getBytes(value);
  if (raw.length !== 32) throw new RangeError(`expected 32 bytes, got ${raw.length}`);
  return raw;
}
