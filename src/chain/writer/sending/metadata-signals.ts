import type { RegistryBatchItem } from "../../../registry";

/** Events besides the current one whose changes the registry keeps apart in a batch (CustodialERC721._PARKED_EVENTS). */
const PARKED_EVENTS = 7;

/**
 * Gas of one ERC-4906 BatchMetadataUpdate as a batch pays it (measured about 2,000 with its bookkeeping:
 * the log, the two log2 that find its range, the entry that collects it), with room to spare.
 */
export const SIGNAL_GAS = 2_500;

/**
 * Gas of moving from one event's tickets to another's: the registry's pending changes move (a search of the parked
 * events and a swap), and it reads again whether the event is cancelled (warm; its first, cold read is storageGas's).
 */
export const EVENT_SWITCH_GAS = 1_100;

/**
 * The registry's ERC-4906 bookkeeping of a batch, mirrored (CustodialERC721.FlagWord): the event of the
 * latest ticket change, and up to PARKED_EVENTS others whose changes wait for the end of the batch; an
 * event more makes the oldest parked one signal at once. Each event that enters costs one signal, and
 * every move between events a switch: items alternating between events are what this prices, which the
 * per-item figures (measured on one event) leave out. An upper bound: an item the registry refuses
 * changes nothing and signals nothing, and the registry notes a change when it leaves a flag word, so
 * it sees the same events in the same order, a word later.
 */
export class MetadataSignals {
  private current: bigint | null = null;
  private parked: bigint[] = [];
  private oldest = 0;

  /** Gas `item` adds to the batch's signals, were it taken next. The first event's signal is in BATCH_BASE_GAS. */
  gasOf(item: RegistryBatchItem): number {
    const event = eventOf(item);
    if (event === null || event === this.current || this.current === null) return 0;
    return EVENT_SWITCH_GAS + (this.parked.includes(event) ? 0 : SIGNAL_GAS);
  }

  /** Takes `item` into the batch. */
  take(item: RegistryBatchItem): void {
    const event = eventOf(item);
    if (event === null || event === this.current) return;
    const previous = this.current;
    this.current = event;
    if (previous === null) return;
    const found = this.parked.indexOf(event);
    if (found >= 0) {
      this.parked[found] = previous;
    } else if (this.parked.length < PARKED_EVENTS) {
      this.parked.push(previous);
    } else {
      this.parked[this.oldest] = previous;
      this.oldest = (this.oldest + 1) % PARKED_EVENTS;
    }
  }
}

/** The event whose tokens a ticket item changes; null for event items (an update signals on its own, within its figure). */
function eventOf(item: RegistryBatchItem): bigint | null {
  return "tokenId" in item ? item.tokenId >> 64n : null;
}
