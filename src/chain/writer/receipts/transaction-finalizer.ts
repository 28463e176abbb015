import { Injectable } from "@nestjs/common";

import type { AppConfig } from "../../../config/app-config";
import { InjectConfig } from "../../../config/config.module";
import { chainFailureCode, RegistryItemFailure } from "../../../registry";
import type { OpenTransaction } from "../signed-transaction";
import { RegistrySubjectFacts } from "../restore/registry-subject-facts";
import { type ClosedNonce, FinalizationStore, type RefusedItem } from "./finalization.store";
import type { BatchOutcome, MinedReceipt } from "./mined-receipt";

/**
 * Closes a nonce once its receipt is deep enough: the actions it carried become confirmed or error,
 * tickets learn their holders, and each finalized action gets its callback row, all in one
 * transaction. A reverted transaction puts its actions back in line, up to a limit.
 */
@Injectable()
export class TransactionFinalizer {
  constructor(
    private readonly store: FinalizationStore,
    private readonly subjectFacts: RegistrySubjectFacts,
    @InjectConfig() private readonly config: AppConfig,
  ) {}

  /**
   * Returns the actions the transaction carried with their new status and the gas attributed to each
   * organization, or null when another worker closed the nonce first.
   */
  async finalize(
    mined: OpenTransaction,
    receipt: MinedReceipt,
    outcome: BatchOutcome | null,
    chainId: bigint,
    registryAddress: string,
  ): Promise<ClosedNonce | null> {
    const chain = { chainId, registryAddress };
    // What the chain holds of a failed action's subject, as of the block that carried it: the actions still on their way come after it.
    const facts = this.subjectFacts.at(receipt.blockNumber);
    if (receipt.status === 1 && outcome) return this.store.markConfirmed(mined, receipt, refusedItems(outcome), outcome.holders, chain, facts);
    return this.store.requeueReverted(mined, receipt, this.config.chain.writer.maxRevertedAttempts, chain, facts);
  }
}

function refusedItems(outcome: BatchOutcome): RefusedItem[] {
  return [...outcome.failures.entries()].map(([batchIndex, reason]) => ({
    batchIndex,
    code: chainFailureCode(reason),
    message: `The registry refused the item: ${RegistryItemFailure[reason] ?? `reason ${reason}`}.`,
  }));
}
