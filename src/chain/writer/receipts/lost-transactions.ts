import { Injectable, Logger } from "@nestjs/common";
import type { JsonRpcProvider } from "ethers";

import type { ChainSigner } from "../../signers";
import type { FinalAttempt, SignedTransaction } from "../signed-transaction";
import { TransactionSender } from "../broadcast/transaction-sender";
import { ReceiptsStore } from "./receipts.store";

/**
 * A node that lost blocks the ledger had already confirmed (restarted from an older state, or a
 * reorg deeper than CONFIRMATIONS) counts fewer of the signer's transactions than the oldest open
 * nonce: everything after waits behind the gap. The bytes mined at the missing nonces are sent
 * again, in order; they do what they did, and their actions stay as they were reported.
 */
@Injectable()
export class LostTransactions {
  private readonly logger = new Logger(LostTransactions.name);
  /** Signers whose node counted fewer transactions than the ledger had confirmed, at the last pass. */
  private readonly lostOnce = new Set<string>();

  constructor(
    private readonly store: ReceiptsStore,
    private readonly transactions: TransactionSender,
  ) {}

  async resend(provider: JsonRpcProvider, wallet: ChainSigner, oldestOpen: bigint): Promise<void> {
    // Mined blocks only (a node's pool count dips while it mines), and seen on two passes in a row.
    const chainCount = BigInt(await provider.getTransactionCount(wallet.address, "latest"));
    const lost = chainCount < oldestOpen ? await this.store.finalAttempts(wallet.address, chainCount, oldestOpen) : [];
    if (lost.length === 0 || !this.lostOnce.delete(wallet.address)) {
      if (lost.length > 0) this.lostOnce.add(wallet.address);
      else this.lostOnce.delete(wallet.address);
      return;
    }
    const kept = keptUntilGone(lost);
    this.logger.warn(
      { signer: wallet.address, from: chainCount.toString(), to: (oldestOpen - 1n).toString() },
      `the node counts ${chainCount} transactions of ${wallet.address}, the ledger had confirmed up to nonce ${oldestOpen - 1n}: sending ${kept.length} of them again`,
    );
    if (kept.length < lost.length) {
      const gone = lost[kept.length].nonce.toString();
      this.logger.error(
        { signer: wallet.address, from: gone },
        `${lost.length - kept.length} of them are not sent: the bytes of nonce ${gone}, final for longer than RAW_TX_RETENTION_HOURS, are no longer kept; point the service at a node that has those blocks`,
      );
    }
    for (const tx of kept) if (!(await this.transactions.send(provider, tx)).accepted) return;
  }
}

/**
 * The attempts, in nonce order, up to the first whose bytes are gone: one sent after it would only
 * wait in the node's pool behind that nonce.
 */
function keptUntilGone(attempts: readonly FinalAttempt[]): SignedTransaction[] {
  const kept: SignedTransaction[] = [];
  for (const attempt of attempts) {
    if (attempt.raw === null) break;
    kept.push({ ...attempt, raw: attempt.raw });
  }
  return kept;
}
