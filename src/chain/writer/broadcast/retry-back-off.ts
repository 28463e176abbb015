import { Injectable } from "@nestjs/common";

import type { AppConfig } from "../../../config/app-config";
import { InjectConfig } from "../../../config/config.module";
import type { SignedTransaction } from "../signed-transaction";
import type { BroadcastResult } from "./broadcast";

/** The longest wait between two tries of the same refused transaction. */
export const MAX_BACK_OFF_MS = 15_000;

/** How long after its `failures`-th refusal in a row a transaction is tried again: the poll interval, doubling, at most MAX_BACK_OFF_MS. */
export function backOffMs(failures: number, pollIntervalMs: number): number {
  return Math.min(MAX_BACK_OFF_MS, pollIntervalMs * 2 ** Math.max(0, failures - 1));
}

/**
 * When a refused nonce may be sent again. One clock per signer, so that after a spell of refusals
 * its nonces go out again together and in order, never a later one alone; and the refusals the
 * writer met while it held the signer, kept until the receipt watcher takes them to answer (the
 * writer holds the lock such an answer may need).
 */
@Injectable()
export class RetryBackOff {
  private readonly clocks = new Map<string, { failures: number; nextAt: number }>();
  /**
   * By nonce, with the bytes refused: a replacement at the same nonce (the answer to an earlier
   * refusal, made before this one was taken) is not those bytes, and is neither held nor answered
   * with their refusal. One entry per nonce at most: a later refusal at the nonce replaces it. An
   * entry stays while its answer is under way (`answering`): the answer (a replacement signed,
   * nonces taken back) takes node and database round trips, and the refused bytes sent beside it
   * would be mined instead of the answer.
   */
  private readonly unanswered = new Map<string, { hash: string; result: BroadcastResult; answering: boolean }>();

  constructor(@InjectConfig() private readonly config: AppConfig) {}

  /** The writer's refusal of a batch it just signed: the watcher answers it. */
  refusedToWriter(tx: SignedTransaction, result: BroadcastResult): void {
    this.unanswered.set(keyOf(tx), { hash: tx.hash, result, answering: false });
  }

  /**
   * A refusal the writer met for these bytes and nobody took yet: taken once, and the bytes stay held
   * until `answered`. One of other bytes at the nonce is dropped.
   */
  takeUnanswered(tx: SignedTransaction): BroadcastResult | null {
    const entry = this.unanswered.get(keyOf(tx));
    if (!entry) return null;
    if (entry.hash !== tx.hash) {
      this.unanswered.delete(keyOf(tx));
      return null;
    }
    if (entry.answering) return null;
    entry.answering = true;
    return entry.result;
  }

  /** The refusal taken for these bytes is answered (or its answer failed): they follow the signer's clock again. */
  answered(tx: SignedTransaction): void {
    if (this.unanswered.get(keyOf(tx))?.hash === tx.hash) this.unanswered.delete(keyOf(tx));
  }

  /**
   * Whether the nonce may be sent (or bumped) again now: not while it is backing off after a refusal,
   * nor while a refusal the writer met waits for the watcher's answer (a later flush or a watcher pass
   * that read it unsent before would otherwise send the refused bytes again, ahead of that answer).
   */
  mayRetry(tx: SignedTransaction): boolean {
    const refused = this.unanswered.get(keyOf(tx));
    return !(refused && refused.hash === tx.hash) && (this.clocks.get(tx.signer)?.nextAt ?? 0) <= Date.now();
  }

  /** One more refusal of the signer in a row: its next try waits longer. */
  refused(signer: string): void {
    const failures = (this.clocks.get(signer)?.failures ?? 0) + 1;
    this.clocks.set(signer, { failures, nextAt: Date.now() + backOffMs(failures, this.config.chain.writer.pollIntervalMs) });
  }

  /** The signer's nonces may go at once again (one was accepted, or they were taken back). */
  clear(signer: string): void {
    this.clocks.delete(signer);
  }
}

function keyOf(tx: SignedTransaction): string {
  return `${tx.signer}:${tx.nonce}`;
}
