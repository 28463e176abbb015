import { Injectable } from "@nestjs/common";
import type { JsonRpcProvider } from "ethers";

import { ChainWriterQueue } from "../../queue/chain-writer.queue";
import { BroadcastStore } from "../broadcast/broadcast.store";
import { SignerProgress } from "../progress/signer-progress";
import type { OpenTransaction } from "../signed-transaction";
import type { SignerSlot } from "../signer-slot";
import { Confirmations } from "./confirmations";
import { LostTransactions } from "./lost-transactions";
import { BlockHashes } from "./block-hashes";
import { fetchReceipt, type MinedReceipt } from "./mined-receipt";
import { UnminedNonces } from "./unmined-nonces";

/** `newlyMined`: seen in a block for the first time this pass, not yet deep enough. */
type NonceState = "finalized" | "newlyMined" | "mined" | "unmined" | "taken";

/**
 * One pass over a signer's open nonces, oldest first: bytes a node lost are sent again (see
 * LostTransactions), each mined nonce goes on towards final (see Confirmations), each unmined one is
 * seen to (see UnminedNonces). The signer's oldest unmined nonce goes to SignerProgress, and a nonce
 * first seen mined (or finalized) makes room for the writer's next batch: only unmined nonces hold
 * MAX_IN_FLIGHT_PER_SIGNER's slots (see SendingStore.countNoncesInFlight).
 */
@Injectable()
export class SignerWatch {
  constructor(
    private readonly store: BroadcastStore,
    private readonly lost: LostTransactions,
    private readonly confirmations: Confirmations,
    private readonly unmined: UnminedNonces,
    private readonly progress: SignerProgress,
    private readonly queue: ChainWriterQueue,
  ) {}

  async pass(provider: JsonRpcProvider, slot: SignerSlot): Promise<void> {
    const signer = slot.wallet.address;
    const open = await this.store.openTransactions(signer);
    if (open.length === 0) {
      this.progress.oldestUnmined(signer, null);
      return;
    }
    await this.lost.resend(provider, slot.wallet, open[0].nonce);
    const confirmedThrough = await this.confirmations.confirmedThrough(provider);
    // Every open attempt's receipt is asked for at once: the node answers the later ones while the
    // earlier nonces are finalized in the database, in nonce order. A pass that stops early leaves
    // some unread; their failures must not end the process. A receipt the ledger already holds as
    // mined, in a block not yet deep enough, is not read: a batch's receipt carries thousands of logs,
    // and at CONFIRMATIONS=12 reading each one every pass took most of the worker's time.
    const unread = open.filter((attempt) => !awaitsDepth(attempt, confirmedThrough));
    const receipts = new Map(unread.map((attempt) => [attempt.hash, fetchReceipt(provider, attempt.hash)]));
    for (const receipt of receipts.values()) receipt.catch(() => undefined);
    // Several batches are mined in one block: its hash is read once a pass.
    const blocks = new BlockHashes(provider);
    // The signer's transactions counted at the confirmed depth: a nonce below it is used, by us or another.
    let confirmedCount: Promise<number> | undefined;
    const countConfirmed = () => (confirmedCount ??= provider.getTransactionCount(signer, confirmedThrough));
    let roomMade = false;
    let oldestUnmined: OpenTransaction[] | undefined;
    for (const attempts of groupByNonce(open)) {
      const state = await this.watchNonce(provider, slot, attempts, { confirmedThrough, countConfirmed, receipts, blocks });
      // Given up as taken, with the later nonces the node did not hold: what this pass read of them is stale.
      if (state === "taken") break;
      roomMade = state === "finalized" || state === "newlyMined" || roomMade;
      if (state === "unmined") oldestUnmined ??= attempts;
    }
    this.progress.oldestUnmined(signer, oldestUnmined ? { nonce: oldestUnmined[0].nonce, signedAt: oldestUnmined[0].createdAt } : null);
    if (roomMade) await this.queue.requestFlush("capacity", slot.shard);
  }

  /** Where the nonce stands after this look: finalized now, mined (not yet deep enough; first seen so now, or before), unmined, or given up as taken by another transaction. */
  private async watchNonce(provider: JsonRpcProvider, slot: SignerSlot, attempts: OpenTransaction[], pass: PassReads): Promise<NonceState> {
    if (await stillInItsBlock(attempts, pass)) return "mined";
    const receipts = await Promise.all(attempts.map((attempt) => pass.receipts.get(attempt.hash) ?? fetchReceipt(provider, attempt.hash)));
    const minedAt = receipts.findIndex((receipt) => receipt !== null);
    if (minedAt < 0) return this.unmined.look(provider, slot, attempts, pass.countConfirmed);
    this.unmined.forget(attempts);
    const receipt = receipts[minedAt];
    const seenMinedBefore = attempts.some((attempt) => attempt.status === "mined");
    if (receipt && (await this.confirmations.onMined(provider, attempts[minedAt], receipt, pass.confirmedThrough, pass.blocks))) return "finalized";
    return seenMinedBefore ? "mined" : "newlyMined";
  }
}

/** What one pass reads of the node once for all its nonces. */
interface PassReads {
  confirmedThrough: number;
  /** The signer's transactions counted at the confirmed depth, read when first needed. */
  countConfirmed: () => Promise<number>;
  /** Each open attempt's receipt (null: not mined), asked for when the pass began. */
  receipts: Map<string, Promise<MinedReceipt | null>>;
  blocks: BlockHashes;
}

/** Mined, as the ledger last saw it, in a block above the confirmed depth. */
function awaitsDepth(attempt: OpenTransaction, confirmedThrough: number): boolean {
  return attempt.status === "mined" && attempt.minedIn !== null && attempt.minedIn.blockNumber > confirmedThrough;
}

/**
 * Whether a nonce waits for depth in the block the ledger saw it mined in, that block still the
 * canonical one at its height: then its receipt says nothing new. A reorged block sends the nonce
 * to its receipt again.
 */
async function stillInItsBlock(attempts: OpenTransaction[], pass: PassReads): Promise<boolean> {
  const mined = attempts.find((attempt) => awaitsDepth(attempt, pass.confirmedThrough));
  return mined?.minedIn ? (await pass.blocks.at(mined.minedIn.blockNumber)) === mined.minedIn.blockHash : false;
}

function groupByNonce(transactions: OpenTransaction[]): OpenTransaction[][] {
  const groups = new Map<bigint, OpenTransaction[]>();
  for (const tx of transactions) groups.set(tx.nonce, [...(groups.get(tx.nonce) ?? []), tx]);
  return [...groups.values()];
}
