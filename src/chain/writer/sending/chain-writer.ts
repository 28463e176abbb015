import { Injectable, Logger } from "@nestjs/common";
import type { JsonRpcProvider } from "ethers";

import type { AppConfig } from "../../../config/app-config";
import { InjectConfig } from "../../../config/config.module";
import { encodeItem } from "../../../registry";
import { ChainClient } from "../../chain-client";
import type { ChainSigner } from "../../signers";
import { ChainWriterQueue } from "../../queue/chain-writer.queue";
import { LedgerBinding } from "../binding/ledger-binding";
import type { Fees } from "../current-fees";
import { FeeCapGuard } from "../fee-cap/fee-cap.guard";
import { SignerProgress } from "../progress/signer-progress";
import { ReceiptsStore } from "../receipts/receipts.store";
import { SignerNonceGuard } from "../reconcile/signer-nonce-guard";
import { LearnedLimits } from "../refusals/learned-limits";
import { RefusalResponder } from "../refusals/refusal-responder";
import { FundsGate } from "../signer-funds/funds-gate";
import { SignerLocks } from "../signer-locks";
import { logSent, logUnencodable } from "../transaction-log";
import { type BatchLimits, type BatchPlan, planBatch } from "./batch-plan";
import { broadcastRaw } from "./broadcast";
import { BroadcastOrder } from "./broadcast-order";
import { CrashPoints } from "./crash-points";
import type { PendingAction } from "./pending-action";
import { SendingStore, type UnencodableAction } from "./sending.store";
import { signBatch } from "./transaction-signer";

/** The broadcasts of one flush: the latest (each waits for the one before), and whether one was refused or held back. */
interface Sending {
  previous: Promise<void>;
  refused: boolean;
  /** Whether the earlier open nonces were seen mined or held by the node (checked before the flush's first broadcast). */
  ordered: boolean;
}

function shortOfFunds(balance: bigint, needed: bigint): string {
  return `balance ${balance} wei, below the ${needed} wei its next transaction may cost (gas limit × max fee)`;
}

/** How many waiting actions one look at the ledger reads: more than any batch can carry. */
const READ_LIMIT = 5_000;

/**
 * Sends the ledger's waiting actions to the registry, per signer, in acceptance order: every event
 * belongs to one signer (its registry index modulo the number of signers), so a sale is never mined
 * before its event. A batch is sent when it is full or its oldest action has waited BATCH_MAX_WAIT_MS.
 */
@Injectable()
export class ChainWriter {
  private readonly logger = new Logger(ChainWriter.name);
  private readonly wallets: ChainSigner[];
  /** The gas one transaction may use by the configuration and the latest block, as of the latest flush. */
  private configuredGas = Number.POSITIVE_INFINITY;

  constructor(
    private readonly chain: ChainClient,
    private readonly store: SendingStore,
    private readonly locks: SignerLocks,
    private readonly queue: ChainWriterQueue,
    private readonly crashPoints: CrashPoints,
    private readonly feeCap: FeeCapGuard,
    private readonly progress: SignerProgress,
    private readonly funds: FundsGate,
    private readonly learned: LearnedLimits,
    private readonly refusals: RefusalResponder,
    private readonly receipts: ReceiptsStore,
    private readonly nonceGuard: SignerNonceGuard,
    private readonly order: BroadcastOrder,
    @InjectConfig() private readonly config: AppConfig,
    private readonly binding: LedgerBinding,
  ) {
    this.wallets = chain.signers();
  }

  get shardCount(): number {
    return this.wallets.length;
  }

  async flush(shard: number): Promise<void> {
    const wallet = this.wallets[shard];
    if (!wallet || !this.chain.configured) return;
    const lock = await this.locks.tryAcquire(`writer:${wallet.address}`);
    if (!lock) {
      // Another flush of this signer is running; ask again shortly so nothing it missed waits for the sweep.
      await this.queue.requestFlushOnce("busy", shard, 250);
      return;
    }
    try {
      await this.flushLocked(wallet, shard);
    } finally {
      await lock.release();
    }
  }

  private async flushLocked(wallet: ChainSigner, shard: number): Promise<void> {
    const provider = await this.chain.connect();
    // Nothing is signed or sent to a registry that is not the ledger's (see LedgerBinding).
    if (!(await this.binding.allowsWriting(provider))) return;
    const chainId = await this.chain.chainId();
    // The chain's count before the ledger's nonce (see SignerNonceGuard): then the chain ahead is not ours.
    const chainPending = BigInt(await provider.getTransactionCount(wallet.address, "pending"));
    await this.store.ensureSigner(wallet.address, chainId, chainPending);
    if (!(await this.nonceGuard.maySign(wallet.address, chainPending))) return;
    if (await this.registryPaused(provider)) {
      this.logger.warn("the registry is paused: actions wait until it is unpaused");
      return;
    }
    this.configuredGas = await this.gasBudget(provider);
    const limits = this.learned.of(wallet.address, { gas: this.configuredGas, bytes: this.config.chain.writer.txMaxBytes });
    // Null while fees are over MAX_FEE_PER_GAS_GWEI: the guard wakes the writer again later.
    const fees = await this.feeCap.fees(provider);
    if (!fees) return this.funds.hold(wallet.address, shard, this.shardCount, "fees above MAX_FEE_PER_GAS_GWEI", null);
    let balance = await provider.getBalance(wallet.address, "pending");
    const needed = this.funds.neededWei(wallet.address);
    if (needed !== null && balance < needed) return this.funds.hold(wallet.address, shard, this.shardCount, shortOfFunds(balance, needed), needed);
    await this.funds.resume(wallet.address, shard, this.shardCount);
    // Nonces refused before go first, in order: the lock this flush holds would keep the watcher from sending them.
    if (!(await this.resendUnsent(wallet, provider))) return;
    // Broadcasts run while the next batch is prepared (a node may answer only once it has mined);
    // the lock is held until every one of them has returned.
    // Each broadcast starts once the one before it has returned, so nonces reach the node in order
    // (an automining node refuses a nonce from the future). After a refusal nothing more is signed:
    // the receipt watcher answers it first.
    const sending: Sending = { previous: Promise.resolve(), refused: false, ordered: false };
    try {
      while (!sending.refused && (await this.store.countNoncesInFlight(wallet.address)) < this.config.chain.writer.maxInFlightPerSigner) {
        const plan = await this.nextBatch(shard, limits, chainId);
        if (!plan) return;
        // Again before each batch: the key may be used elsewhere while this flush waits for a batch to fill.
        if (!(await this.nonceGuard.maySign(wallet.address, BigInt(await provider.getTransactionCount(wallet.address, "pending"))))) return;
        const cost = BigInt(plan.gasLimit) * fees.maxFeePerGas;
        if (balance < cost) return await this.funds.hold(wallet.address, shard, this.shardCount, shortOfFunds(balance, cost), cost);
        balance -= cost;
        await this.send(wallet, provider, plan, chainId, fees, sending);
      }
    } finally {
      await sending.previous;
    }
  }

  /** Broadcasts the signer's unsent nonces in order once their back-off allows; false when one is refused or still backing off. */
  private async resendUnsent(wallet: ChainSigner, provider: JsonRpcProvider): Promise<boolean> {
    for (const tx of await this.receipts.unsentTransactions(wallet.address)) {
      if (!this.refusals.mayRetry(tx) || !(await this.order.mayBroadcast(provider, tx))) return false;
      const result = await broadcastRaw(provider, tx, this.logger, this.progress);
      if (!result.accepted) {
        this.refusals.refusedToWriter(tx, result);
        return false;
      }
      await this.store.markBroadcast(tx.id);
    }
    return true;
  }

  /** Signs and commits the batch; its broadcast follows the previous one's and settles when the node has answered. */
  private async send(wallet: ChainSigner, provider: JsonRpcProvider, plan: BatchPlan, chainId: bigint, fees: Fees, sending: Sending): Promise<void> {
    const batch = {
      chainId,
      registryAddress: this.chain.registryAddress,
      items: plan.actions.map((action) => encodeItem(action.item)),
      gasLimit: BigInt(plan.gasLimit),
    };
    const signed = await this.store.commitNewTransaction(wallet.address, plan.actions, (nonce) => signBatch(wallet, this.chain.registry, batch, nonce, fees));
    this.crashPoints.reach("after-persist");
    logSent(this.logger, signed);
    sending.previous = sending.previous.then(async () => {
      if (sending.refused) return;
      // Held back while an earlier nonce is neither mined nor in the node: the watcher sends it once it may.
      if (!sending.ordered && !(await this.order.mayBroadcast(provider, signed))) {
        sending.refused = true;
        return;
      }
      sending.ordered = true;
      const result = await broadcastRaw(provider, signed, this.logger, this.progress);
      if (result.accepted) await this.store.markBroadcast(signed.id);
      else {
        sending.refused = true;
        this.refusals.refusedToWriter(signed, result);
      }
      this.crashPoints.reach("after-broadcast");
    });
  }

  /** The next batch of this shard, or null when nothing waits. Waits up to BATCH_MAX_WAIT_MS for a batch to fill. */
  private async nextBatch(shard: number, limits: BatchLimits, chainId: bigint): Promise<BatchPlan | null> {
    let plan = await this.readBatch(shard, limits, chainId);
    if (!plan || plan.full) return plan;
    const waited = Date.now() - plan.actions[0].acceptedAt.getTime();
    const remaining = this.config.chain.writer.maxWaitMs - waited;
    if (remaining <= 0) return plan;
    await new Promise((resolve) => setTimeout(resolve, remaining));
    plan = await this.readBatch(shard, limits, chainId);
    return plan;
  }

  private async readBatch(shard: number, limits: BatchLimits, chainId: bigint): Promise<BatchPlan | null> {
    for (;;) {
      const waiting = await this.store.waitingActions(this.shardCount, shard, READ_LIMIT);
      const encodable = await this.withoutUnencodable(waiting, chainId);
      if (encodable.length === 0) return null;
      const plan = planBatch(encodable, limits);
      if (!plan.tooLarge) return plan;
      // Too large only for what a node taught (see LearnedLimits): it goes alone, and the node decides.
      const alone = planBatch([plan.tooLarge.action], this.configuredLimits(limits));
      if (!alone.tooLarge) return { ...alone, full: true };
      // An item no transaction can carry fails on its own instead of blocking its signer; the rest go on.
      const { action, reason } = plan.tooLarge;
      const failed = await this.store.failUnencodable([{ id: action.id, reason, code: "onchain_item_too_large" }], chainId, this.chain.registryAddress);
      logUnencodable(this.logger, failed, [{ id: action.id, reason }]);
    }
  }

  /** An item the codec refuses can never be sent: it fails at once instead of blocking its shard. */
  private async withoutUnencodable(actions: PendingAction[], chainId: bigint): Promise<PendingAction[]> {
    const refused: UnencodableAction[] = [];
    const kept = actions.filter((action) => {
      try {
        encodeItem(action.item);
        return true;
      } catch (error) {
        refused.push({ id: action.id, reason: (error as Error).message });
        return false;
      }
    });
    if (refused.length > 0) logUnencodable(this.logger, await this.store.failUnencodable(refused, chainId, this.chain.registryAddress), refused);
    return kept;
  }

  /** The limits before anything was learned: the configuration's (the gas budget is read per flush). */
  private configuredLimits(limits: BatchLimits): BatchLimits {
    return { gas: this.configuredGas, bytes: this.config.chain.writer.txMaxBytes, calldataGasPerByte: limits.calldataGasPerByte };
  }

  /** The chain's per-transaction cap, and a share of the block so other traffic still fits. */
  private async gasBudget(provider: JsonRpcProvider): Promise<number> {
    const block = await provider.getBlock("latest");
    const blockShare = block ? Number(block.gasLimit) * this.config.chain.writer.blockGasShare : Number.POSITIVE_INFINITY;
    return Math.floor(Math.min(this.config.chain.writer.txGasCap, blockShare));
  }

  private async registryPaused(provider: JsonRpcProvider): Promise<boolean> {
    const data = this.chain.registry.encodeFunctionData("paused");
    const result = await provider.call({ to: this.chain.registryAddress, data });
    return this.chain.registry.decodeFunctionResult("paused", result)[0] as boolean;
  }
}
