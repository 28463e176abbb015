import { Injectable } from "@nestjs/common";
import type { JsonRpcProvider } from "ethers";

import { BroadcastStore } from "../broadcast/broadcast.store";
import { RetryBackOff } from "../broadcast/retry-back-off";
import { TransactionSender } from "../broadcast/transaction-sender";
import { FeeBumper } from "../fee-bump/fee-bumper";
import { RefusalResponder } from "../refusals/refusal-responder";
import type { OpenTransaction } from "../signed-transaction";
import type { SignerSlot } from "../signer-slot";
import { SignerLocks } from "../signer-locks";

/** Sends an open nonce again, as the bytes the ledger holds or replaced with higher fees, and answers what the node says (see RefusalResponder). */
@Injectable()
export class Resender {
  constructor(
    private readonly transactions: TransactionSender,
    private readonly refusals: RefusalResponder,
    private readonly backOff: RetryBackOff,
    private readonly bumper: FeeBumper,
    private readonly locks: SignerLocks,
    private readonly store: BroadcastStore,
  ) {}

  /** The same bytes, once every earlier nonce is mined or held by the node. */
  async sendAgain(provider: JsonRpcProvider, slot: SignerSlot, tx: OpenTransaction): Promise<void> {
    if (!(await this.transactions.inOrder(provider, tx))) return;
    const result = await this.transactions.send(provider, tx);
    await this.refusals.respond(provider, slot, tx, result);
  }

  /** The same call at the same nonce with higher fees (see FeeBumper). */
  async replace(provider: JsonRpcProvider, slot: SignerSlot, tx: OpenTransaction, why: string): Promise<void> {
    const result = await this.bumper.replace(provider, slot.wallet, tx, why);
    if (result) await this.refusals.respond(provider, slot, tx, result);
  }

  /**
   * A transaction signed and never broadcast belongs to a running flush, which sends it in nonce
   * order; only when no flush holds the signer (its worker died, or the node refused it) does the watcher send it.
   * This pass read it before taking the lock: a flush may have sent it and let go since, so it is read again,
   * or met a refusal that the next pass answers, so it is left to that answer.
   */
  async sendOrphaned(provider: JsonRpcProvider, slot: SignerSlot, signed: OpenTransaction): Promise<void> {
    const writer = await this.locks.tryAcquire(`writer:${slot.wallet.address}`);
    if (!writer) return;
    let result;
    try {
      if (!(await this.store.stillUnsent(signed.id)) || !this.backOff.mayRetry(signed) || !(await this.transactions.inOrder(provider, signed))) return;
      result = await this.transactions.send(provider, signed);
    } finally {
      await writer.release();
    }
    await this.refusals.respond(provider, slot, signed, result);
  }
}
