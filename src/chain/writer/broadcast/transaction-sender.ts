import { Inject, Injectable, Logger } from "@nestjs/common";
import type { JsonRpcProvider } from "ethers";

import type { SignedTransaction } from "../signed-transaction";
import { BROADCAST_OBSERVER, type BroadcastObserver, broadcastRaw, type BroadcastResult } from "./broadcast";
import { BroadcastOrder } from "./broadcast-order";
import { BroadcastStore } from "./broadcast.store";

/**
 * The one sender of signed transactions, for the writer, the receipt watcher and the fee bumper
 * alike: it sends the bytes the ledger committed, records an accepted attempt as broadcast, and
 * says whether a nonce may go out now without overtaking an earlier one (see BroadcastOrder).
 */
@Injectable()
export class TransactionSender {
  private readonly logger = new Logger(TransactionSender.name);

  constructor(
    private readonly store: BroadcastStore,
    private readonly order: BroadcastOrder,
    @Inject(BROADCAST_OBSERVER) private readonly observer: BroadcastObserver,
  ) {}

  /** Whether `tx` may go out now: still open, and every earlier open nonce of its signer mined or held by the node. */
  inOrder(provider: JsonRpcProvider, tx: SignedTransaction): Promise<boolean> {
    return this.order.mayBroadcast(provider, tx);
  }

  /**
   * Whether the signer's transactions sent and not yet mined (by the node's count of its mined
   * ones) hold less than `blockGasLimit` gas: room for another in the node's pool (see BatchSender).
   */
  async poolHasRoom(provider: JsonRpcProvider, signer: string, blockGasLimit: bigint): Promise<boolean> {
    const mined = BigInt(await provider.getTransactionCount(signer, "latest"));
    return (await this.store.gasSentFrom(signer, mined)) < blockGasLimit;
  }

  /** Sends the bytes (see broadcastRaw); an attempt the node accepted is marked broadcast. */
  async send(provider: JsonRpcProvider, tx: SignedTransaction): Promise<BroadcastResult> {
    const result = await broadcastRaw(provider, tx, this.logger, this.observer);
    if (result.accepted) await this.store.markBroadcast(tx.id);
    return result;
  }
}
