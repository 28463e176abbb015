import { Injectable } from "@nestjs/common";
import type { JsonRpcProvider } from "ethers";

import type { AppConfig } from "../../../config/app-config";
import { InjectConfig } from "../../../config/config.module";
import { LearnedLimits } from "../refusals/learned-limits";
import type { SignerSlot } from "../signer-slot";
import { type BatchLimits, type BatchPlan, planBatch, type UnencodableItem } from "./batch-plan";
import { anyOrganizationAtShare, fairOrder, TURNS_PER_BATCH } from "./fair-order";
import { SendingStore } from "./sending.store";
import { UnsendableActions } from "./unsendable-actions";

/** How many waiting actions one look at the ledger reads, shared among the organizations that have some: more than any batch can carry. */
const READ_LIMIT = 5_000;

/** The limits of one flush's batches: the configuration's, and those lowered by what the signer's node refused (see LearnedLimits). */
export interface FlushLimits {
  learned: BatchLimits;
  configured: BatchLimits;
  /** The latest block's gas limit (unbounded when the node has no block to tell it). */
  blockGasLimit: bigint;
}

/**
 * The next batch of a shard's waiting actions, the organizations' in turn (see fairOrder), each
 * organization's in acceptance order, within the gas budget
 * (`min(TX_GAS_CAP, block gas limit × BLOCK_GAS_SHARE_PERCENT)`, read per flush) and TX_MAX_BYTES.
 * A batch that is not full waits until its oldest action has waited BATCH_MAX_WAIT_MS; an action
 * that can never be sent fails on its own instead of blocking its shard.
 */
@Injectable()
export class BatchReader {
  constructor(
    private readonly store: SendingStore,
    private readonly unsendable: UnsendableActions,
    private readonly learned: LearnedLimits,
    @InjectConfig() private readonly config: AppConfig,
  ) {}

  /** The limits of this flush: the configured ones, and the signer's as its node taught them. */
  async limitsOf(provider: JsonRpcProvider, signer: string): Promise<FlushLimits> {
    const block = await provider.getBlock("latest");
    const configured = { gas: this.gasBudget(block?.gasLimit), bytes: this.config.chain.writer.txMaxBytes };
    const learned = this.learned.of(signer, configured);
    // A calldata price the node taught holds even for an item that goes alone.
    return {
      learned,
      configured: { ...configured, calldataGasPerByte: learned.calldataGasPerByte },
      blockGasLimit: block?.gasLimit ?? BigInt(Number.MAX_SAFE_INTEGER),
    };
  }

  /** The next batch of this shard, or null when nothing waits. Waits up to BATCH_MAX_WAIT_MS for a batch to fill. */
  async next(slot: SignerSlot, limits: FlushLimits): Promise<BatchPlan | null> {
    let plan = await this.read(slot, limits);
    if (!plan || plan.full) return plan;
    // The first action of a plan is the oldest it takes: organizations take turns from the one waiting longest.
    const waited = Date.now() - plan.actions[0].acceptedAt.getTime();
    const remaining = this.config.chain.writer.maxWaitMs - waited;
    if (remaining <= 0) return plan;
    await new Promise((resolve) => setTimeout(resolve, remaining));
    plan = await this.read(slot, limits);
    return plan;
  }

  private async read(slot: SignerSlot, limits: FlushLimits): Promise<BatchPlan | null> {
    for (;;) {
      const { actions: waiting, perOrganization } = await this.store.readWaiting(slot.shardCount, slot.shard, READ_LIMIT);
      if (waiting.length === 0) return null;
      // An item the codec refuses can never be sent: it fails at once instead of blocking its shard.
      const unencodable: UnencodableItem[] = [];
      const plan = planBatch(fairOrder(waiting, limits.learned.gas / TURNS_PER_BATCH), limits.learned, unencodable);
      await this.unsendable.fail(unencodable.map(({ action, reason }) => ({ id: action.id, reason })));
      // Every action read was refused by the codec: read again.
      if (plan.actions.length === 0 && !plan.tooLarge) continue;
      // The plan took every action read, and an organization may have more than its share waiting: no reason to wait for more.
      if (!plan.tooLarge) return plan.full || !anyOrganizationAtShare(waiting, perOrganization) ? plan : { ...plan, full: true };
      // Too large only for what a node taught (see LearnedLimits): it goes alone, and the node decides.
      const alone = planBatch([plan.tooLarge.action], limits.configured);
      if (!alone.tooLarge) return { ...alone, full: true };
      // An item no transaction can carry fails on its own instead of blocking its signer; the rest go on.
      const { action, reason } = plan.tooLarge;
      await this.unsendable.fail([{ id: action.id, reason, code: "onchain_item_too_large" }]);
    }
  }

  /** The chain's per-transaction cap, and a share of the block so other traffic still fits. */
  private gasBudget(blockGasLimit: bigint | undefined): number {
    const blockShare = blockGasLimit !== undefined ? Number(blockGasLimit) * this.config.chain.writer.blockGasShare : Number.POSITIVE_INFINITY;
    return Math.floor(Math.min(this.config.chain.writer.txGasCap, blockShare));
  }
}
