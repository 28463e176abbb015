import type { ReceiverShares } from "../callback-outbox.store";

/**
 * Per-receiver fairness: one receiver holds at most half of the CALLBACK_CONCURRENCY slots, so a
 * slow receiver (or one with a large backlog) leaves the other half to everybody else.
 */
export class ReceiverSlots {
  /** Callbacks in flight per receiver. */
  private readonly taken = new Map<string, number>();
  /** Receivers too full for the last claim: when one gets room again, a claim is worth making at once. */
  private leftOut = new Set<string>();
  /** The most one receiver may hold. */
  readonly perReceiver: number;
  /** A receiver with less room than this is left out of a claim: too few slots to be worth one. */
  private readonly claimBatch: number;

  constructor(concurrency: number, claimBatch: number) {
    this.perReceiver = Math.max(1, Math.floor(concurrency / 2));
    this.claimBatch = Math.min(claimBatch, this.perReceiver);
  }

  /** What the next claim may take per receiver. */
  shares(): ReceiverShares {
    const inFlight = [...this.taken.keys()].map((receiver) => ({ receiver, room: this.roomOf(receiver) }));
    return { full: this.full(), inFlight, idleRoom: this.perReceiver };
  }

  take(receiver: string): void {
    this.taken.set(receiver, (this.taken.get(receiver) ?? 0) + 1);
  }

  /** Frees a slot; true when that gives a receiver the last claim left out a claim batch of room again. */
  release(receiver: string): boolean {
    const count = (this.taken.get(receiver) ?? 1) - 1;
    if (count === 0) this.taken.delete(receiver);
    else this.taken.set(receiver, count);
    return this.perReceiver - count === this.claimBatch && this.leftOut.has(receiver);
  }

  /** Whether the receiver has room for a claim batch (the claim does not leave it out). */
  hasClaimRoom(receiver: string): boolean {
    return this.roomOf(receiver) >= this.claimBatch;
  }

  /** Remembers which receivers are too full for a claim now, so release can tell when one is worth a claim again. */
  rememberLeftOut(): void {
    this.leftOut = new Set(this.full());
  }

  private roomOf(receiver: string): number {
    return this.perReceiver - (this.taken.get(receiver) ?? 0);
  }

  private full(): string[] {
    return [...this.taken.keys()].filter((receiver) => this.roomOf(receiver) < this.claimBatch);
  }
}
