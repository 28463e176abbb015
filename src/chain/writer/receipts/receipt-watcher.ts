import { type BeforeApplicationShutdown, Injectable, Logger, type OnApplicationBootstrap } from "@nestjs/common";
import type { JsonRpcProvider } from "ethers";

import type { AppConfig } from "../../../config/app-config";
import { InjectConfig } from "../../../config/config.module";
import { ChainClient } from "../../chain-client";
import { confirmedThrough as confirmedBlock } from "../../confirmed-block";
import { PollingLoop } from "../../polling-loop";
import type { ChainSigner } from "../../signers";
import { ChainWriterQueue } from "../../queue/chain-writer.queue";
import { LedgerBinding } from "../binding/ledger-binding";
import { SignerProgress } from "../progress/signer-progress";
import { RefusalResponder, type SignerSlot } from "../refusals/refusal-responder";
import { broadcastRaw } from "../sending/broadcast";
import { BroadcastOrder } from "../sending/broadcast-order";
import { SendingStore } from "../sending/sending.store";
import type { OpenTransaction } from "../signed-transaction";
import { SignerLocks } from "../signer-locks";
import { logClosed } from "../transaction-log";
import { WriterMetrics } from "../writer-metrics";
import { FeeBumper } from "./fee-bumper";
import { fetchReceipt, type MinedReceipt, readBatchOutcome } from "./mined-receipt";
import { ReceiptsStore } from "./receipts.store";
import { TransactionFinalizer } from "./transaction-finalizer";

/** How long the node must not know broadcast bytes before they are sent again: longer than a block is being mined. */
const UNKNOWN_RESEND_AFTER_MS = 3_000;

/**
 * Follows every sent nonce to its end: marks it mined, finalizes it at the configured depth,
 * re-sends bytes the node lost (a crash before broadcast, a restarted node, a reorg), replaces a
 * transaction stuck below the market with higher fees, and answers the node's refusals of what it
 * sends (see RefusalResponder).
 */
@Injectable()
export class ReceiptWatcher implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(ReceiptWatcher.name);
  private readonly wallets: ChainSigner[];
  private readonly loop = new PollingLoop(
    () => this.watch(),
    () => this.config.chain.writer.pollIntervalMs,
    (error) => this.logger.warn(`receipt watch failed, retrying: ${error.message}`),
  );
  /** Broadcast transactions the node did not know at the last pass, with when it first did not. */
  private readonly unknownSince = new Map<string, number>();
  /** Signers whose node counted fewer transactions than the ledger had confirmed, at the last pass. */
  private readonly lostOnce = new Set<string>();

  constructor(
    private readonly chain: ChainClient,
    private readonly receipts: ReceiptsStore,
    private readonly sending: SendingStore,
    private readonly finalizer: TransactionFinalizer,
    private readonly locks: SignerLocks,
    private readonly queue: ChainWriterQueue,
    @InjectConfig() private readonly config: AppConfig,
    private readonly metrics: WriterMetrics,
    private readonly progress: SignerProgress,
    private readonly bumper: FeeBumper,
    private readonly refusals: RefusalResponder,
    private readonly order: BroadcastOrder,
    private readonly binding: LedgerBinding,
  ) {
    this.wallets = chain.signers();
  }

  onApplicationBootstrap(): void {
    if (this.chain.configured) this.loop.start();
  }

  /** Stops before the connections close; a restarted watcher picks up where this one stopped. */
  beforeApplicationShutdown(): void {
    this.loop.stop();
  }

  /** One pass over every signer; exposed for tests. */
  poll(): Promise<void> {
    return this.loop.runOnce();
  }

  private async watch(): Promise<void> {
    const provider = await this.chain.connect();
    // Resends and fee bumps go to the ledger's registry only (see LedgerBinding).
    if (!(await this.binding.allowsWriting(provider))) return;
    for (const [shard, wallet] of this.wallets.entries()) await this.watchSigner(provider, shard, wallet);
  }

  private async watchSigner(provider: JsonRpcProvider, shard: number, wallet: ChainSigner): Promise<void> {
    const lock = await this.locks.tryAcquire(`watcher:${wallet.address}`);
    if (!lock) return;
    try {
      const open = await this.receipts.openTransactions(wallet.address);
      if (open.length === 0) {
        this.progress.oldestUnmined(wallet.address, null);
        return;
      }
      await this.resendLost(provider, wallet, open[0].nonce);
      const confirmedThrough = await confirmedBlock(provider, this.config.chain.confirmations);
      const slot = { wallet, shard, shardCount: this.wallets.length };
      // The signer's transactions counted at the confirmed depth: a nonce below it is used, by us or another.
      let confirmedCount: Promise<number> | undefined;
      const countConfirmed = () => (confirmedCount ??= provider.getTransactionCount(wallet.address, confirmedThrough));
      let finalized = false;
      let oldestUnmined: OpenTransaction[] | undefined;
      for (const attempts of groupByNonce(open)) {
        const state = await this.watchNonce(provider, slot, attempts, confirmedThrough, countConfirmed);
        // Given up as taken, with the later nonces the node did not hold: what this pass read of them is stale.
        if (state === "taken") break;
        finalized = state === "finalized" || finalized;
        if (state === "unmined") oldestUnmined ??= attempts;
      }
      this.progress.oldestUnmined(wallet.address, oldestUnmined ? { nonce: oldestUnmined[0].nonce, signedAt: oldestUnmined[0].createdAt } : null);
      if (finalized) await this.queue.requestFlush("capacity", shard);
    } finally {
      await lock.release();
    }
  }

  /**
   * A node that lost blocks the ledger had already confirmed (restarted from an older state, or a
   * reorg deeper than CONFIRMATIONS) counts fewer of the signer's transactions than the oldest open
   * nonce: everything after waits behind the gap. The bytes mined at the missing nonces are sent
   * again, in order; they do what they did, and their actions stay as they were reported.
   */
  private async resendLost(provider: JsonRpcProvider, wallet: ChainSigner, oldestOpen: bigint): Promise<void> {
    // Mined blocks only (a node's pool count dips while it mines), and seen on two passes in a row.
    const chainCount = BigInt(await provider.getTransactionCount(wallet.address, "latest"));
    const lost = chainCount < oldestOpen ? await this.receipts.finalAttempts(wallet.address, chainCount, oldestOpen) : [];
    if (lost.length === 0 || !this.lostOnce.delete(wallet.address)) {
      if (lost.length > 0) this.lostOnce.add(wallet.address);
      else this.lostOnce.delete(wallet.address);
      return;
    }
    this.logger.warn(
      { signer: wallet.address, from: chainCount.toString(), to: (oldestOpen - 1n).toString() },
      `the node counts ${chainCount} transactions of ${wallet.address}, the ledger had confirmed up to nonce ${oldestOpen - 1n}: sending ${lost.length} of them again`,
    );
    for (const tx of lost) if (!(await broadcastRaw(provider, tx, this.logger, this.progress)).accepted) return;
  }

  /** Where the nonce stands after this look: finalized now, mined (not yet deep enough), unmined, or given up as taken by another transaction. */
  private async watchNonce(
    provider: JsonRpcProvider,
    slot: SignerSlot,
    attempts: OpenTransaction[],
    confirmedThrough: number,
    countConfirmed: () => Promise<number>,
  ): Promise<"finalized" | "mined" | "unmined" | "taken"> {
    const receipts = await Promise.all(attempts.map((attempt) => fetchReceipt(provider, attempt.hash)));
    const minedAt = receipts.findIndex((receipt) => receipt !== null);
    if (minedAt >= 0) {
      // Mined: none of its bytes is waited on as unknown any more.
      for (const attempt of attempts) this.unknownSince.delete(attempt.hash);
      return (await this.onMined(provider, attempts[minedAt], receipts[minedAt] as MinedReceipt, confirmedThrough)) ? "finalized" : "mined";
    }
    if (await this.refusals.takenByAnother(provider, slot, attempts, await countConfirmed())) return "taken";
    await this.onUnmined(provider, slot, attempts);
    return "unmined";
  }

  private async onMined(provider: JsonRpcProvider, attempt: OpenTransaction, receipt: MinedReceipt, confirmedThrough: number): Promise<boolean> {
    if (receipt.blockNumber > confirmedThrough) {
      if (attempt.status !== "mined") await this.receipts.markMined(attempt.id, receipt.blockNumber, receipt.blockHash);
      return false;
    }
    // Deep enough (or finalized): finalize only if the block is still the canonical one at that height.
    const block = await provider.getBlock(receipt.blockNumber);
    if (block?.hash !== receipt.blockHash) return false;
    const outcome = receipt.status === 1 ? readBatchOutcome(this.chain.registry, this.chain.registryAddress, receipt) : null;
    const closed = await this.finalizer.finalize(attempt, receipt, outcome, await this.chain.chainId(), this.chain.registryAddress);
    if (closed) {
      logClosed(this.logger, attempt, receipt, closed);
      this.metrics.transactionClosed(attempt, receipt, closed);
    }
    return true;
  }

  private async onUnmined(provider: JsonRpcProvider, slot: SignerSlot, attempts: OpenTransaction[]): Promise<void> {
    const reorged = attempts.filter((a) => a.status === "mined");
    for (const attempt of reorged) {
      this.logger.warn(
        { signer: attempt.signer, nonce: attempt.nonce.toString(), hash: attempt.hash },
        `receipt of ${attempt.hash} vanished (reorg): sending it again`,
      );
      await this.receipts.markUnmined(attempt.id);
    }
    const latest = attempts[attempts.length - 1];
    // A transaction a reorg took back was mined, not stuck: the same bytes go out again now (the node
    // may hold them again: then it knows them), and its stuck clock restarts.
    if (reorged.length > 0) return this.sendAgain(provider, slot, latest);
    const sentAt = latest.broadcastAt ?? latest.createdAt;
    if (latest.status !== "signed" && Date.now() - sentAt.getTime() > this.config.chain.writer.stuckAfterMs) {
      const result = await this.bumper.replace(provider, slot.wallet, latest, `stuck since ${sentAt.toISOString()}`);
      if (result) await this.refusals.respond(provider, slot, latest, result);
      return;
    }
    // Refused to the writer: answered now, instead of sending the same bytes again.
    const unanswered = latest.status === "signed" ? this.refusals.takeUnanswered(latest) : null;
    if (unanswered) {
      await this.refusals.respond(provider, slot, latest, unanswered);
      return;
    }
    // Refused before: tried again only once its back-off has passed.
    if (!this.refusals.mayRetry(latest)) return;
    if (latest.status === "signed") {
      await this.sendOrphaned(provider, slot, latest);
      return;
    }
    // Bytes the node does not know (lost by a restarted node, dropped by a reorg) go out again; only
    // the latest attempt, since a replacement supersedes the ones before it.
    if (await this.unknownLongEnough(provider, latest.hash)) await this.sendAgain(provider, slot, latest);
  }

  private async sendAgain(provider: JsonRpcProvider, slot: SignerSlot, tx: OpenTransaction): Promise<void> {
    if (!(await this.order.mayBroadcast(provider, tx))) return;
    const result = await broadcastRaw(provider, tx, this.logger, this.progress);
    if (result.accepted) await this.sending.markBroadcast(tx.id);
    await this.refusals.respond(provider, slot, tx, result);
  }

  /**
   * Whether the node has not known these bytes for UNKNOWN_RESEND_AFTER_MS. A node between pool and
   * block (Anvil while it mines, slower on a busy machine) briefly knows neither, and bytes sent
   * again then are sent twice: a pass count alone proved too short at a 100 ms poll.
   */
  private async unknownLongEnough(provider: JsonRpcProvider, hash: string): Promise<boolean> {
    if (await provider.getTransaction(hash)) {
      this.unknownSince.delete(hash);
      return false;
    }
    const since = this.unknownSince.get(hash);
    if (since === undefined) {
      this.unknownSince.set(hash, Date.now());
      return false;
    }
    if (Date.now() - since < UNKNOWN_RESEND_AFTER_MS) return false;
    this.unknownSince.delete(hash);
    return true;
  }

  /**
   * A transaction signed and never broadcast belongs to a running flush, which sends it in nonce
   * order; only when no flush holds the signer (its worker died, or the node refused it) does the watcher send it.
   * This pass read it before taking the lock: a flush may have sent it and let go since, so it is read again,
   * or met a refusal that the next pass answers, so it is left to that answer.
   */
  private async sendOrphaned(provider: JsonRpcProvider, slot: SignerSlot, signed: OpenTransaction): Promise<void> {
    const writer = await this.locks.tryAcquire(`writer:${slot.wallet.address}`);
    if (!writer) return;
    let result;
    try {
      if (!(await this.receipts.stillUnsent(signed.id)) || !this.refusals.mayRetry(signed) || !(await this.order.mayBroadcast(provider, signed))) return;
      result = await broadcastRaw(provider, signed, this.logger, this.progress);
      if (result.accepted) await this.sending.markBroadcast(signed.id);
    } finally {
      await writer.release();
    }
    await this.refusals.respond(provider, slot, signed, result);
  }
}

function groupByNonce(transactions: OpenTransaction[]): OpenTransaction[][] {
  const groups = new Map<bigint, OpenTransaction[]>();
  for (const tx of transactions) groups.set(tx.nonce, [...(groups.get(tx.nonce) ?? []), tx]);
  return [...groups.values()];
}
