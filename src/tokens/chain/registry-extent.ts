import { Injectable } from "@nestjs/common";

import { splitTokenId } from "../../registry";
import { LedgerExtentStore } from "../ledger-extent.store";
import { type HeadChanges, RegistryHead } from "./registry-head";

/** What the extent says of a tokenId: it cannot exist; it may (read the chain); or its event is unknown here (ask the chain whether it was registered). */
export type ExtentVerdict = "absent" | "possible" | "unknown_event";

/** The serial of an event-wide ERC-4906 signal (EventUpdated: every serial of the event), which says nothing of what was minted. */
const EVENT_WIDE_SERIAL = (1n << 64n) - 1n;

/**
 * Which tokens the registry can hold as of the head the metadata is read at, known without asking the
 * node: the writer mints only the ledger's tickets, whose event indexes and serials the ledger hands
 * out in order, so a token whose event index is past the highest handed out, or whose serial is past
 * its event's last, does not exist. Seeded from the ledger at every reset of the head (at start, after
 * a reorg), after the head's block was read, so it covers everything minted up to that block; then
 * extended from the registry's logs the head reads anyway: EventRegistered for new events, and each
 * event's ERC-4906 range (a sale changes its tokens' flags, so a batch signals the highest token it
 * minted). An event index within the highest but not the ledger's (a gap, or an event a restored
 * ledger lost) is `unknown_event`: the chain is asked once whether it was registered.
 */
@Injectable()
export class RegistryExtent {
  /** Null until seeded (or after a seed failed): then every token is possible, and the chain decides. */
  private highestEventIndex: bigint | null = null;
  private readonly highestSerials = new Map<bigint, bigint>();

  constructor(
    private readonly ledger: LedgerExtentStore,
    head: RegistryHead,
  ) {
    head.onChanges((changes) => this.follow(changes));
  }

  verdict(tokenId: bigint): ExtentVerdict {
    if (this.highestEventIndex === null) return "possible";
    const { eventIndex, serial } = splitTokenId(tokenId);
    if (eventIndex > this.highestEventIndex) return "absent";
    const highestSerial = this.highestSerials.get(eventIndex);
    if (highestSerial === undefined) return "unknown_event";
    return serial <= highestSerial ? "possible" : "absent";
  }

  /** Waited for by the head before it hands out the block these changes lead to. */
  async follow(changes: HeadChanges): Promise<void> {
    if (changes.reset) return this.seed();
    if (this.highestEventIndex === null) return;
    for (const eventIndex of changes.registeredEvents) {
      if (eventIndex > this.highestEventIndex) this.highestEventIndex = eventIndex;
      if (!this.highestSerials.has(eventIndex)) this.highestSerials.set(eventIndex, 0n);
    }
    for (const [, to] of changes.tokenRanges) {
      const { eventIndex, serial } = splitTokenId(to);
      const highest = this.highestSerials.get(eventIndex);
      // Only an event known here gets a bound: one the ledger lost may hold serials from before.
      if (highest !== undefined && serial !== EVENT_WIDE_SERIAL && serial > highest) this.highestSerials.set(eventIndex, serial);
    }
  }

  private async seed(): Promise<void> {
    this.highestEventIndex = null;
    this.highestSerials.clear();
    const { highestEventIndex, lastSerials } = await this.ledger.extent();
    for (const [eventIndex, serial] of lastSerials) this.highestSerials.set(eventIndex, serial);
    this.highestEventIndex = highestEventIndex;
  }
}
