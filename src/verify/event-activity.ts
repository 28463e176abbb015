import type { Interface, Log } from "ethers";

import { inCustodialSpace, splitTokenId } from "../registry";

/** `records` of TicketsCheckedIn and TicketsInvalidated: 24-byte (uint128 tokenId, uint64 orderTime) pairs. */
const RECORD_BYTES = 24;

/** How many transactions an event page lists, newest first. */
export const RECENT_TRANSACTIONS = 20;
/** How many of its tokens an event page links to, newest first (with the total stated). */
export const RECENT_TOKENS = 50;

export type ActivityKind = "sale" | "check-in" | "invalidation" | "claim" | "resale" | "update" | "cancellation";

/** One registry transaction concerning an event, as the page lists it. */
export interface ActivityTx {
  txHash: string;
  blockNumber: number;
  kind: ActivityKind;
}

/** What the registry's logs say about one event, tallied from its registration block up to `scannedTo`. */
export interface EventActivity {
  scannedTo: number;
  checkedIn: number;
  invalidated: number;
  claimed: number;
  resales: number;
  /** The latest RECENT_TRANSACTIONS, newest first. */
  recent: ActivityTx[];
  /** The latest RECENT_TOKENS sold tokens, newest first. */
  tokens: bigint[];
}

export function emptyActivity(scannedTo: number): EventActivity {
  return { scannedTo, checkedIn: 0, invalidated: 0, claimed: 0, resales: 0, recent: [], tokens: [] };
}

/** The event's tokenIds in packed (uint128 tokenId, uint64 orderTime) records. */
export function recordTokenIds(recordsHex: string): bigint[] {
  const records = Buffer.from(recordsHex.replace(/^0x/, ""), "hex");
  const tokenIds: bigint[] = [];
  for (let offset = 0; offset + RECORD_BYTES <= records.length; offset += RECORD_BYTES) {
    tokenIds.push(BigInt("0x" + records.subarray(offset, offset + 16).toString("hex")));
  }
  return tokenIds;
}

/**
 * Adds the registry logs of one block range (in chain order) to an event's tally: sales, resales and
 * packed check-in and invalidation records of its tokens, claims (a Transfer out of the
 * registry's custodial address space into a wallet), updates and cancellation. Logs of other events are skipped. Returns a new tally.
 */
export function tallyLogs(
  previous: EventActivity,
  logs: readonly Log[],
  scannedTo: number,
  event: { eventIndex: bigint; custodyMask: bigint },
  registry: Interface,
): EventActivity {
  const next: EventActivity = { ...previous, scannedTo, recent: [...previous.recent], tokens: [...previous.tokens] };
  const ofEvent = (tokenId: bigint) => splitTokenId(tokenId).eventIndex === event.eventIndex;
  for (const log of logs) {
    const parsed = registry.parseLog(log);
    if (!parsed) continue;
    const note = (kind: ActivityKind) => next.recent.unshift({ txHash: log.transactionHash, blockNumber: log.blockNumber, kind });
    const args = parsed.args;
    switch (parsed.name) {
      case "TicketSold":
        if (!ofEvent(args.tokenId as bigint)) break;
        next.tokens.unshift(args.tokenId as bigint);
        note("sale");
        break;
      case "TicketResold":
        if (!ofEvent(args.tokenId as bigint)) break;
        next.resales += 1;
        note("resale");
        break;
      case "TicketsCheckedIn":
      case "TicketsInvalidated": {
        const count = recordTokenIds(args.records as string).filter(ofEvent).length;
        if (count === 0) break;
        if (parsed.name === "TicketsCheckedIn") next.checkedIn += count;
        else next.invalidated += count;
        note(parsed.name === "TicketsCheckedIn" ? "check-in" : "invalidation");
        break;
      }
      case "Transfer":
        // A claim moves a token out of the custodial space; a resale moves it within, a wallet's transfer outside it.
        if (
          !ofEvent(args.tokenId as bigint) ||
          !inCustodialSpace(event.custodyMask, args.from as string) ||
          inCustodialSpace(event.custodyMask, args.to as string)
        )
          break;
        next.claimed += 1;
        note("claim");
        break;
      case "EventUpdated":
      case "EventCancelled":
        if ((args.eventIndex as bigint) !== event.eventIndex) break;
        note(parsed.name === "EventUpdated" ? "update" : "cancellation");
        break;
    }
  }
  next.recent = dedupe(next.recent).slice(0, RECENT_TRANSACTIONS);
  next.tokens = next.tokens.slice(0, RECENT_TOKENS);
  return next;
}

/** One line per transaction and kind: a batch transaction that checks in many of the event's tickets is listed once. */
function dedupe(recent: ActivityTx[]): ActivityTx[] {
  const seen = new Set<string>();
  return recent.filter((entry) => {
    const key = `${entry.txHash}:${entry.kind}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
