import { Injectable, Logger } from "@nestjs/common";
import type { JsonRpcProvider } from "ethers";

import type { AppConfig } from "../../../config/app-config";
import { InjectConfig } from "../../../config/config.module";
import { ChainClient } from "../../chain-client";
import { confirmedThrough } from "../../confirmed-block";
import type { OpenTransaction } from "../signed-transaction";
import { logClosed } from "../transaction-log";
import { WriterMetrics } from "../writer-metrics";
import { BlockHashes } from "./block-hashes";
import { type MinedReceipt, readBatchOutcome } from "./mined-receipt";
import { ReceiptsStore } from "./receipts.store";
import { TransactionFinalizer } from "./transaction-finalizer";

/**
 * A mined nonce on its way to final: marked mined until its block is CONFIRMATIONS deep (with
 * `finalized`: at or below the node's finalized block), then closed (see TransactionFinalizer) if
 * that block is still the canonical one at its height.
 */
@Injectable()
export class Confirmations {
  private readonly logger = new Logger(Confirmations.name);

  constructor(
    private readonly chain: ChainClient,
    private readonly store: ReceiptsStore,
    private readonly finalizer: TransactionFinalizer,
    private readonly metrics: WriterMetrics,
    @InjectConfig() private readonly config: AppConfig,
  ) {}

  /** The highest block that counts as confirmed now. */
  confirmedThrough(provider: JsonRpcProvider): Promise<number> {
    return confirmedThrough(provider, this.config.chain.confirmations);
  }

  /** True when the attempt was finalized now; false while its block is not deep enough, or no longer canonical. */
  async onMined(
    provider: JsonRpcProvider,
    attempt: OpenTransaction,
    receipt: MinedReceipt,
    confirmedThrough: number,
    blocks: BlockHashes = new BlockHashes(provider),
  ): Promise<boolean> {
    if (receipt.blockNumber > confirmedThrough) {
      // Seen mined again in another block after a reorg: the ledger follows, so that later passes check that block.
      if (attempt.status !== "mined" || attempt.minedIn?.blockHash !== receipt.blockHash) {
        await this.store.markMined(attempt.id, receipt.blockNumber, receipt.blockHash);
      }
      return false;
    }
    // Deep enough (or finalized): finalize only if the block is still the canonical one at that height.
    if ((await blocks.at(receipt.blockNumber)) !== receipt.blockHash) return false;
    const outcome = receipt.status === 1 ? readBatchOutcome(this.chain.registry, this.chain.registryAddress, receipt) : null;
    const closed = await this.finalizer.finalize(attempt, receipt, outcome, await this.chain.chainId(), this.chain.registryAddress);
    if (closed) {
      logClosed(this.logger, attempt, receipt, closed.actions);
      this.metrics.transactionClosed(attempt, receipt, closed.actions);
      this.metrics.gasAttributed(closed.gasByOrganization);
    }
    return true;
  }
}
