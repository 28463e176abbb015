import { getBytes } from "ethers";

import { BatchActionCode } from "./registry-batch";

export type BatchAction = keyof typeof BatchActionCode;

/** One item of a batch as far as it names what it acts on: its action and its subject (eventIndex for event items, tokenId otherwise). */
export interface BatchItemSubject {
  action: BatchAction;
  subject: bigint;
}

const ACTIONS = new Map<number, BatchAction>(Object.entries(BatchActionCode).map(([action, code]) => [code, action as BatchAction]));

/** Bytes after the code of the fixed-size items (BatchReader.sol); registrations and updates carry details of varying size. */
const FIXED_SIZE: Partial<Record<BatchAction, number>> = {
  sold: 16 + 32 + 16 + 8,
  resold: 16 + 16 + 8,
  checkedIn: 16 + 8,
  invalidated: 16 + 8,
  claimed: 16 + 20,
  cancelEvent: 8,
  updateTicket: 16 + 32,
  soldWithMetadata: 16 + 32 + 16 + 8 + 32,
};

/** Items whose subject is an event (its u64 index) rather than a token. */
const EVENT_ITEMS: ReadonlySet<BatchAction> = new Set(["registerEvent", "updateEvent", "cancelEvent"]);

/** Fixed part of event details (latitude, longitude, startTime, endTime), then five length-prefixed texts, then metadataHash. */
const DETAILS_FIXED = 4 + 4 + 8 + 8;
const DETAILS_TEXTS = 5;
const DETAILS_METADATA_HASH = 32;

/** The items of a batch `TicketRegistry.execute` took, in order: the reverse of encodeBatch, as far as subjects go. */
export function batchItemSubjects(batch: string): BatchItemSubject[] {
  const bytes = getBytes(batch);
  const items: BatchItemSubject[] = [];
  for (let offset = 0; offset < bytes.length;) {
    const action = ACTIONS.get(bytes[offset]);
    if (!action) throw new RangeError(`unknown action code ${bytes[offset]} at byte ${offset}`);
    items.push({ action, subject: readUint(bytes, offset + 1, EVENT_ITEMS.has(action) ? 8 : 16) });
    offset += 1 + (FIXED_SIZE[action] ?? detailedItemSize(bytes, offset + 1, action));
  }
  return items;
}

function detailedItemSize(bytes: Uint8Array, start: number, action: BatchAction): number {
  const head = action === "registerEvent" ? 8 + 32 + 32 : 8;
  let offset = start + head + DETAILS_FIXED;
  for (let text = 0; text < DETAILS_TEXTS; text++) offset += 2 + Number(readUint(bytes, offset, 2));
  return offset + DETAILS_METADATA_HASH - start;
}

function readUint(bytes: Uint8Array, offset: number, size: number): bigint {
  if (offset + size > bytes.length) throw new RangeError(`batch ends inside an item at byte ${offset}`);
  let value = 0n;
  for (let index = 0; index < size; index++) value = (value << 8n) | BigInt(bytes[offset + index]);
  return value;
}
