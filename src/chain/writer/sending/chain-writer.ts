import { Injectable, Logger } from "@nestjs/common";

import { ChainClient } from "../../chain-client";
import { ChainWriterQueue } from "../../queue/chain-writer.queue";
import type { ChainSigner } from "../../signers";
import type { GateAnswer } from "../gate-answer";
import type { SignerSlot } from "../signer-slot";
import { SignerLocks } from "../signer-locks";
import { logSent } from "../transaction-log";
import type { BatchPlan } from "./batch-plan";
import { BatchReader } from "./batch-reader";
import { BatchSender, type FlushSending } from "./batch-sender";
import { FlushGates } from "./flush-gates";
import { ActionsChangedWhileSigning } from "./sending.store";

/**
 * Sends the ledger's waiting actions to the registry, per signer, in acceptance order: every event
 * belongs to one signer (its registry index modulo the number of signers), so a sale is never mined
 * before its event. One flush of a signer at a time: once its gates say go (see FlushGates), it
 * signs batch after batch (see BatchReader, BatchSender) while fewer than MAX_IN_FLIGHT_PER_SIGNER
 * nonces are signed or sent and not yet mined.
 */
@Injectable()
export class ChainWriter {
  private readonly logger = new Logger(ChainWriter.name);
  private readonly wallets: ChainSigner[];

  constructor(
    private readonly chain: ChainClient,
    private readonly locks: SignerLocks,
    private readonly queue: ChainWriterQueue,
    private readonly gates: FlushGates,
    private readonly batches: BatchReader,
    private readonly sender: BatchSender,
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
      await this.flushLocked({ wallet, shard, shardCount: this.shardCount });
    } finally {
      await lock.release();
    }
  }

  private async flushLocked(slot: SignerSlot): Promise<void> {
    const provider = await this.chain.connect();
    const gate = await this.gates.check(provider, slot);
    if (this.held(slot, gate)) return;
    const funds = { fees: gate.fees, balance: gate.balance };
    const limits = await this.batches.limitsOf(provider, slot.wallet.address);
    // Broadcasts run while the next batch is prepared (a node may answer only once it has mined);
    // the lock is held until every one of them has returned.
    const sending = this.sender.start(provider, slot.wallet, await this.chain.chainId(), funds.fees, limits.blockGasLimit);
    try {
      while (await this.sender.hasRoom(sending)) {
        const plan = await this.batches.next(slot, limits);
        if (!plan) return;
        if (this.held(slot, await this.gates.checkBatch(provider, slot, plan, funds))) return;
        const sent = await this.sentUnlessChanged(sending, plan);
        if (sent) logSent(this.logger, sent);
      }
    } finally {
      await this.sender.settled(sending);
    }
  }

  /** Sends the batch; null when one of its actions was cancelled while it was signed (nothing went out: the next plan leaves it out). */
  private async sentUnlessChanged(sending: FlushSending, plan: BatchPlan): Promise<Awaited<ReturnType<BatchSender["send"]>> | null> {
    try {
      return await this.sender.send(sending, plan);
    } catch (error) {
      if (!(error instanceof ActionsChangedWhileSigning)) throw error;
      this.logger.debug({ signer: sending.wallet.address, actions: plan.actions.length }, `batch planned again: ${error.message}`);
      return null;
    }
  }

  /** Whether a gate holds the flush; the gates that hold actions log it themselves, so why is at debug here. */
  private held(slot: SignerSlot, answer: GateAnswer): answer is Extract<GateAnswer, { go: false }> {
    if (answer.go) return false;
    this.logger.debug({ signer: slot.wallet.address, reason: answer.reason }, `flush held: ${answer.reason}`);
    return true;
  }
}
