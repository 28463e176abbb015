import { BATCH_ITEM_GAS } from "../../../common/actions";
import type { RegistryBatchItem } from "../../../registry";

/** Upper bounds of the gas one item costs inside a batch: the ACTIONS table's (src/common/actions.ts). */
const ITEM_GAS = BATCH_ITEM_GAS;

/**
 * The transaction's own cost: 21,000 intrinsic gas, the role and pause checks, the loop's setup, and the
 * ERC-4906 signal of the batch's first event (about 2,000; every further event is priced by MetadataSignals).
 */
export const BATCH_BASE_GAS = 60_000;

export function itemGas(item: RegistryBatchItem): number {
  return ITEM_GAS[item.action];
}

/** A cold storage slot written from zero (20,000 + the 2,100 cold access). */
const FRESH_SLOT_GAS = 22_100;
/** A cold storage slot read (2,100) and rewritten non-zero (2,900). */
const COLD_SLOT_GAS = 5_000;
/** A cold storage slot only read. */
const COLD_READ_GAS = 2_100;

/**
 * Storage the per-item figures leave out, because a run of consecutive tickets of one event shares
 * it: the first item of a batch that touches it pays. A sale (with its metadata or without) may be the first to write its ticket's
 * flag slot (64 consecutive tokenIds share one) and its event's sale counter (and reads the event's
 * key); a check-in or an invalidation rewrites its ticket's flag slot. Every ticket item reads
 * whether its event is cancelled, from the slot of the sale counter: a sale's write of it pays for
 * that read too. Resales and claims are priced far from other tickets already. Returns the gas and
 * the slots `touched` does not hold yet.
 */
export function storageGas(item: RegistryBatchItem, touched: ReadonlySet<string>): { gas: number; slots: string[] } {
  const charges: [slot: string, gas: number][] = [];
  if (!("tokenId" in item)) return { gas: 0, slots: [] };
  const event = item.tokenId >> 64n;
  if (item.action === "sold" || item.action === "soldWithMetadata") {
    // The write pays for the read of the same slot; a read before it in the batch does not pay for the write.
    charges.push([`flags:${item.tokenId >> 6n}`, FRESH_SLOT_GAS], [`event:${event}`, FRESH_SLOT_GAS + COLD_READ_GAS], [`event-read:${event}`, 0]);
  } else {
    charges.push([`event-read:${event}`, COLD_READ_GAS]);
    if (item.action === "checkedIn" || item.action === "invalidated") charges.push([`flags:${item.tokenId >> 6n}`, COLD_SLOT_GAS]);
  }
  const fresh = charges.filter(([slot]) => !touched.has(slot));
  return { gas: fresh.reduce((sum, [, gas]) => sum + gas, 0), slots: fresh.map(([slot]) => slot) };
}
