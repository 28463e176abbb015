import { type BeforeApplicationShutdown, Injectable, Logger, type OnApplicationBootstrap } from "@nestjs/common";
import type { JsonRpcProvider } from "ethers";

import type { AppConfig } from "../../../config/app-config";
import { InjectConfig } from "../../../config/config.module";
import { ChainClient } from "../../chain-client";
import type { ChainSigner } from "../../signers";
import { ChainWriterQueue } from "../../queue/chain-writer.queue";
import { currentFees } from "../current-fees";
import { SignerProgress } from "../progress/signer-progress";
import { broadcastRaw } from "../sending/broadcast";
import { SendingStore } from "../sending/sending.store";
import { bumpedFees, signReplacement } from "../sending/transaction-signer";
import type { OpenTransaction } from "../signed-transaction";
import { SignerLocks } from "../signer-locks";
import { logClosed } from "../transaction-log";
import { WriterMetrics } from "../writer-metrics";
import { fetchReceipt, type MinedReceipt, readBatchOutcome } from "./mined-receipt";
import { ReceiptsStore } from "./receipts.store";
import { TransactionFinalizer } from "./transaction-finalizer";

/**
 * Follows every sent nonce to its end: marks it mined, finalizes it at the configured depth,
 * re-sends bytes the node lost (a crash before broadcast, a restarted node, a reorg), and replaces a
 * transaction stuck below the market with higher fees.
 */
@Injectable()
export class ReceiptWatcher implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(ReceiptWatcher.name);
  private readonly wallets: ChainSigner[];
  private timer: NodeJS.Timeout | undefined;
  private running = false;
  private stopped = false;

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
  ) {
    this.wallets = chain.signers();
  }

  onApplicationBootstrap(): void {
    if (!this.chain.configured) return;
    this.schedule(0);
  }

  /** Stops before the connections close; a restarted watcher picks up where this one stopped. */
  beforeApplicationShutdown(): void {
    this.stopped = true;
    clearTimeout(this.timer);
  }

  /** One pass over every signer; exposed for tests. */
  async poll(): Promise<void> {
    if (this.running) return;
    this.running = true;
    try {
      const provider = await this.chain.connect();
      for (const [shard, wallet] of this.wallets.entries()) await this.watchSigner(provider, shard, wallet);
    } finally {
      this.running = false;
    }
  }

  private schedule(delay: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.poll()
        .catch((error: unknown) => this.logger.warn(`receipt watch failed, retrying: ${(error as Error).message}`))
        .finally(() => this.schedule(this.config.chain.writer.pollIntervalMs));
    }, delay);
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
      const confirmedThrough = await this.confirmedThrough(provider);
      let finalized = false;
      let oldestUnmined: OpenTransaction[] | undefined;
      for (const attempts of groupByNonce(open)) {
        const state = await this.watchNonce(provider, wallet, attempts, confirmedThrough);
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
   * The highest block whose transactions count as confirmed: CONFIRMATIONS deep under the head, or
   * with CONFIRMATIONS=finalized the node's `finalized` block.
   */
  private async confirmedThrough(provider: JsonRpcProvider): Promise<number> {
    const { confirmations } = this.config.chain;
    if (confirmations !== "finalized") return (await provider.getBlockNumber()) - confirmations + 1;
    const finalized = (await provider.send("eth_getBlockByNumber", ["finalized", false])) as { number: string } | null;
    if (!finalized) throw new Error('the node serves no "finalized" block, which CONFIRMATIONS=finalized needs');
    return Number(finalized.number);
  }

  /** Where the nonce stands after this look: finalized now, mined (not yet deep enough), or unmined. */
  private async watchNonce(
    provider: JsonRpcProvider,
    wallet: ChainSigner,
    attempts: OpenTransaction[],
    confirmedThrough: number,
  ): Promise<"finalized" | "mined" | "unmined"> {
    const receipts = await Promise.all(attempts.map((attempt) => fetchReceipt(provider, attempt.hash)));
    const minedAt = receipts.findIndex((receipt) => receipt !== null);
    if (minedAt >= 0) return (await this.onMined(provider, attempts[minedAt], receipts[minedAt] as MinedReceipt, confirmedThrough)) ? "finalized" : "mined";
    await this.onUnmined(provider, wallet, attempts);
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

  private async onUnmined(provider: JsonRpcProvider, wallet: ChainSigner, attempts: OpenTransaction[]): Promise<void> {
    const reorged = attempts.filter((a) => a.status === "mined");
    for (const attempt of reorged) {
      this.logger.warn(
        { signer: attempt.signer, nonce: attempt.nonce.toString(), hash: attempt.hash },
        `receipt of ${attempt.hash} vanished (reorg): sending it again`,
      );
      await this.receipts.markUnmined(attempt.id);
    }
    const latest = attempts[attempts.length - 1];
    const sentAt = latest.broadcastAt ?? latest.createdAt;
    // A transaction a reorg took back was mined, not stuck: the same bytes go out again, and its stuck clock restarts.
    if (reorged.length === 0 && latest.status !== "signed" && Date.now() - sentAt.getTime() > this.config.chain.writer.stuckAfterMs) {
      await this.replace(provider, wallet, latest);
      return;
    }
    if (latest.status === "signed") {
      await this.sendOrphaned(provider, wallet, latest);
      return;
    }
    // Bytes the node does not know (lost by a restarted node, dropped by a reorg) go out again; only
    // the latest attempt, since a replacement supersedes the ones before it.
    if (!(await provider.getTransaction(latest.hash)) && (await broadcastRaw(provider, latest, this.logger, this.progress)))
      await this.sending.markBroadcast(latest.id);
  }

  /**
   * A transaction signed and never broadcast belongs to a running flush, which sends it in nonce
   * order; only when no flush holds the signer (its worker died) does the watcher send it.
   */
  private async sendOrphaned(provider: JsonRpcProvider, wallet: ChainSigner, signed: OpenTransaction): Promise<void> {
    const writer = await this.locks.tryAcquire(`writer:${wallet.address}`);
    if (!writer) return;
    try {
      if (await broadcastRaw(provider, signed, this.logger, this.progress)) await this.sending.markBroadcast(signed.id);
    } finally {
      await writer.release();
    }
  }

  private async replace(provider: JsonRpcProvider, wallet: ChainSigner, stuck: OpenTransaction): Promise<void> {
    // The market as the writer reads it when it sends, so a replacement never undercuts a fresh batch.
    const fees = bumpedFees(stuck, await currentFees(provider, this.config.chain.fees), this.config.chain.writer.feeBumpPercent);
    // A replacement above MAX_FEE_PER_GAS_GWEI is not sent: the stuck transaction waits for fees to drop.
    const cap = this.config.chain.fees.maxFeePerGasWei;
    if (cap !== null && fees.maxFeePerGas > cap) return;
    const replacement = await this.sending.commitReplacement(stuck, await signReplacement(wallet, stuck, fees));
    this.metrics.transactionReplaced();
    this.logger.warn(
      { signer: stuck.signer, nonce: stuck.nonce.toString(), hash: stuck.hash, replacedBy: replacement.hash, maxFeePerGas: fees.maxFeePerGas.toString() },
      `nonce ${stuck.nonce} stuck since ${(stuck.broadcastAt ?? stuck.createdAt).toISOString()}: replaced by ${replacement.hash} at ${fees.maxFeePerGas} wei/gas`,
    );
    if (await broadcastRaw(provider, replacement, this.logger, this.progress)) await this.sending.markBroadcast(replacement.id);
  }
}

function groupByNonce(transactions: OpenTransaction[]): OpenTransaction[][] {
  const groups = new Map<bigint, OpenTransaction[]>();
  for (const tx of transactions) groups.set(tx.nonce, [...(groups.get(tx.nonce) ?? []), tx]);
  return [...groups.values()];
}
