import { Injectable, Logger } from "@nestjs/common";
import type { JsonRpcProvider } from "ethers";

import { ChainWriterQueue } from "../../queue/chain-writer.queue";
import { heldByNode } from "../broadcast/broadcast-order";
import { BroadcastStore } from "../broadcast/broadcast.store";
import { RetryBackOff } from "../broadcast/retry-back-off";
import { UnsendableActions } from "../sending/unsendable-actions";
import type { OpenTransaction } from "../signed-transaction";
import type { SignerSlot } from "../signer-slot";
import { SignerLocks } from "../signer-locks";
import { RefusalsStore, type RequeueStatus } from "./refusals.store";

export interface TakeBackOptions {
  /** A lone item the node refuses as too large can never go: it fails as an item. */
  failAlone?: boolean;
  /** What the refusal teaches, learned only once the nonces are taken back; false when it teaches nothing, and nothing is taken back. */
  learn?: () => boolean;
}

/**
 * Takes back a signer's nonces from a refused one on, so that their actions are planned again (in
 * smaller batches, or once the signer can pay): only when the node holds none of them, so no nonce
 * is ever left a gap, and under the writer's lock, so no batch is signed meanwhile. Otherwise the
 * same bytes are tried again later.
 */
@Injectable()
export class NonceTakeBack {
  private readonly logger = new Logger(NonceTakeBack.name);

  constructor(
    private readonly store: RefusalsStore,
    private readonly open: BroadcastStore,
    private readonly locks: SignerLocks,
    private readonly queue: ChainWriterQueue,
    private readonly unsendable: UnsendableActions,
    private readonly backOff: RetryBackOff,
  ) {}

  async takeBack(
    provider: JsonRpcProvider,
    slot: SignerSlot,
    tx: OpenTransaction,
    status: RequeueStatus,
    why: string,
    options: TakeBackOptions = {},
  ): Promise<void> {
    const lock = await this.locks.tryAcquire(`writer:${tx.signer}`);
    if (!lock) return;
    try {
      const tail = (await this.open.openTransactions(tx.signer)).filter((open) => open.nonce >= tx.nonce);
      const pendingCount = await provider.getTransactionCount(tx.signer, "pending");
      if (BigInt(pendingCount) > tx.nonce || (await heldByNode(provider, tail))) {
        this.logger.warn({ signer: tx.signer, nonce: tx.nonce.toString() }, `nonce ${tx.nonce} ${why}; the node holds a later one, so it is tried again later`);
        return;
      }
      if (options.learn && !options.learn()) return;
      const alone = options.failAlone ? await this.store.actionIdsOf(tx.signer, tx.nonce) : [];
      const requeued = await this.store.withdrawFrom(tx.signer, tx.nonce, status);
      if (alone.length === 1) await this.unsendable.fail([{ id: alone[0], reason: `the item alone was ${why} by the node`, code: "onchain_item_too_large" }]);
      this.logger.warn(
        { signer: tx.signer, nonce: tx.nonce.toString(), requeued },
        `nonce ${tx.nonce} ${why}: ${requeued} actions of nonces ${tx.nonce}…${tail[tail.length - 1].nonce} wait again as ${status}`,
      );
      this.backOff.clear(tx.signer);
    } finally {
      await lock.release();
    }
    await this.queue.requestFlush("refusal", slot.shard);
  }
}
