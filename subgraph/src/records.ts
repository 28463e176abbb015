// The registry's packed byte layouts, decoded without graph-ts so that the same file compiles to a
// plain WebAssembly module the tests can run in Node (see docs/operators/subgraph.md).

/** TicketsCheckedIn and TicketsInvalidated: uint128 tokenId, uint64 orderTime, big-endian. */
export const TIME_RECORD_BYTES: i32 = 24;

/** TicketsMetadataUpdated: uint128 tokenId, bytes32 metadataHash, big-endian. */
export const METADATA_RECORD_BYTES: i32 = 48;

/** A day of the daily counts: Unix seconds divided by this. */
export const SECONDS_PER_DAY: u64 = 86400;

const ADDRESS_BYTES: i32 = 20;
const MAX_EVENT_INDEX: u64 = (1 << 40) - 1;

/** How many whole records `records` holds; trailing bytes short of a record are not one. */
export function recordCount(records: Uint8Array, recordBytes: i32): i32 {
  return records.length / recordBytes;
}

/** The event index of record `index`: the high 64 bits of its uint128 tokenId. */
export function recordEventIndex(records: Uint8Array, recordBytes: i32, index: i32): u64 {
  return readU64(records, index * recordBytes);
}

/** The serial of record `index`: the low 64 bits of its uint128 tokenId. */
export function recordSerial(records: Uint8Array, recordBytes: i32, index: i32): u64 {
  return readU64(records, index * recordBytes + 8);
}

/** The order time (Unix seconds) of record `index` of a check-in or invalidation run. */
export function recordOrderTime(records: Uint8Array, index: i32): u64 {
  return readU64(records, index * TIME_RECORD_BYTES + 16);
}

/** The 32-byte metadata hash of record `index` of a metadata run. */
export function recordMetadataHash(records: Uint8Array, index: i32): Uint8Array {
  const start = index * METADATA_RECORD_BYTES + 16;
  return records.slice(start, start + 32);
}

/**
 * The XOR mask of the registry's custodial addresses, from an event's custody address: the custody address of
 * event `eventIndex` is the mask with the event index in its top 64 bits XOR-ed in (CustodialERC721).
 */
export function custodyMaskOf(custody: Uint8Array, eventIndex: u64): Uint8Array {
  const mask = custody.slice(0, ADDRESS_BYTES);
  for (let i = 0; i < 8; i++) mask[i] ^= <u8>(eventIndex >> (<u64>(56 - 8 * i)));
  return mask;
}

/**
 * Whether `account` is in the custodial address space of the registry with custody mask `mask`: a custody address
 * (serial and resales zero) or a holder address (both non-zero) of an event index up to 2^40 - 1. A claim is a
 * Transfer from such an address to one outside it.
 */
export function inCustodialSpace(mask: Uint8Array, account: Uint8Array): bool {
  if (mask.length != ADDRESS_BYTES || account.length != ADDRESS_BYTES) return false;
  const packed = new Uint8Array(ADDRESS_BYTES);
  for (let i = 0; i < ADDRESS_BYTES; i++) packed[i] = mask[i] ^ account[i];
  const eventIndex = readU64(packed, 0);
  const serial = readU64(packed, 8);
  const resales = <u32>readU64(packed, 12);
  return eventIndex <= MAX_EVENT_INDEX && (serial == 0) == (resales == 0);
}

/** The day number (Unix seconds / 86,400) of a block timestamp, for the daily counts. */
export function dayOf(timestamp: u64): u64 {
  return timestamp / SECONDS_PER_DAY;
}

function readU64(bytes: Uint8Array, offset: i32): u64 {
  let value: u64 = 0;
  for (let i = 0; i < 8; i++) value = (value << 8) | (<u64>bytes[offset + i]);
  return value;
}
