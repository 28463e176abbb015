import { Injectable } from "@nestjs/common";
import type { JsonRpcProvider } from "ethers";

import { BroadcastStore } from "./broadcast.store";
import { RetryBackOff } from "./retry-back-off";
import { TransactionSender } from "./transaction-sender";

/**
 * A signer's nonces signed and never broadcast (refused before, or their worker died first), sent
 * before anything new is signed: in order, each once its back-off allows and the nonces before it
 * are mined or held by the node.
 */
@Injectable()
export class UnsentNonces {
  constructor(
    private readonly store: BroadcastStore,
    private readonly transactions: TransactionSender,
    private readonly backOff: RetryBackOff,
  ) {}

  /** True when none is left unsent; false when one was refused (the watcher answers it) or must wait. */
  async sendAll(provider: JsonRpcProvider, signer: string): Promise<boolean> {
    for (const tx of await this.store.unsentTransactions(signer)) {
      if (!this.backOff.mayRetry(tx) || !(await this.transactions.inOrder(provider, tx))) return false;
      const result = await this.transactions.send(provider, tx);
      if (!result.accepted) {
        this.backOff.refusedToWriter(tx, result);
        return false;
      }
    }
    return true;
  }
}
