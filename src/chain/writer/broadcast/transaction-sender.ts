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
   * Whether the transactions of every signer in the ledger sent and not yet mined (by the node's
   * count of each signer's mined ones) hold less than `blockGasLimit` gas: room for another in the
   * node's pool (see BatchSender). Every signer, not only the one about to send: the block is shared.
   */
  async poolHasRoom(provider: JsonRpcProvider, blockGasLimit: bigint): Promise<boolean> {
    const sent = await this.store.gasSent();
    const signers = [...new Set(sent.map((row) => row.signer))];
    const mined = new Map(await Promise.all(signers.map(async (signer) => [signer, BigInt(await provider.getTransactionCount(signer, "latest"))] as const)));
    const inPool = sent.filter((row) => row.nonce >= mined.get(row.signer)!).reduce((sum, row) => sum + row.gas, 0n);
    return inPool < blockGasLimit;
  }

  /** Sends the bytes (see broadcastRaw); an attempt the node accepted is marked broadcast. */
  async send(provider: JsonRpcProvider, tx: SignedTransaction): Promise<BroadcastResult> {
    const result = await broadcastRaw(provider, tx, this.logger, this.observer);
    if (result.accepted) await this.store.markBroadcast(tx.id);
    return result;
  }
}
