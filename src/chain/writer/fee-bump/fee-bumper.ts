import { Injectable, Logger } from "@nestjs/common";
import type { JsonRpcProvider } from "ethers";

import type { AppConfig } from "../../../config/app-config";
import { InjectConfig } from "../../../config/config.module";
import type { ChainSigner } from "../../signers";
import { currentFees } from "../current-fees";
import type { BroadcastResult } from "../broadcast/broadcast";
import { TransactionSender } from "../broadcast/transaction-sender";
import { SendingStore } from "../sending/sending.store";
import { bumpedFees, signReplacement } from "../transaction-signer";
import type { OpenTransaction } from "../signed-transaction";
import { WriterMetrics } from "../writer-metrics";

/**
 * Signs the same call at the same nonce with fees raised by FEE_BUMP_PERCENT (at least the market's),
 * commits it as the nonce's next attempt and broadcasts it: for a transaction stuck below the market,
 * or one the node refused as underpriced.
 */
@Injectable()
export class FeeBumper {
  private readonly logger = new Logger(FeeBumper.name);

  constructor(
    private readonly sending: SendingStore,
    private readonly metrics: WriterMetrics,
    private readonly transactions: TransactionSender,
    @InjectConfig() private readonly config: AppConfig,
  ) {}

  /** The replacement's broadcast result; null when it would exceed MAX_FEE_PER_GAS_GWEI and nothing was sent (the nonce waits for fees to drop). */
  async replace(provider: JsonRpcProvider, wallet: ChainSigner, previous: OpenTransaction, why: string): Promise<BroadcastResult | null> {
    // Not while an earlier nonce is neither mined nor in the node: nothing is signed, it is tried again later.
    if (!(await this.transactions.inOrder(provider, previous))) return { accepted: false, refusal: null };
    // The market as the writer reads it when it sends, so a replacement never undercuts a fresh batch.
    const fees = bumpedFees(previous, await currentFees(provider, this.config.chain.fees), this.config.chain.writer.feeBumpPercent);
    const cap = this.config.chain.fees.maxFeePerGasWei;
    if (cap !== null && fees.maxFeePerGas > cap) return null;
    const replacement = await this.sending.commitReplacement(previous, await signReplacement(wallet, previous, fees));
    this.metrics.transactionReplaced();
    this.logger.warn(
      {
        signer: previous.signer,
        nonce: previous.nonce.toString(),
        hash: previous.hash,
        replacedBy: replacement.hash,
        maxFeePerGas: fees.maxFeePerGas.toString(),
      },
      `nonce ${previous.nonce} ${why}: replaced by ${replacement.hash} at ${fees.maxFeePerGas} wei/gas`,
    );
    return this.transactions.send(provider, replacement);
  }
}
