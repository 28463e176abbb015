import { Injectable, Logger } from "@nestjs/common";
import type { JsonRpcProvider } from "ethers";

import type { AppConfig } from "../../../config/app-config";
import { InjectConfig } from "../../../config/config.module";
import { ChainClient } from "../../chain-client";
import { ChainWriterQueue } from "../../queue/chain-writer.queue";
import type { ChainSigner } from "../../signers";
import { FeeBumper } from "../receipts/fee-bumper";
import { ReceiptsStore } from "../receipts/receipts.store";
import type { BroadcastResult } from "../sending/broadcast";
import type { NodeRefusal } from "../sending/node-refusal";
import { SendingStore } from "../sending/sending.store";
import type { OpenTransaction, SignedTransaction } from "../signed-transaction";
import { SignerLocks } from "../signer-locks";
import { logUnencodable } from "../transaction-log";
import { FundsGate } from "../signer-funds/funds-gate";
import { SignerNonceGuard } from "../reconcile/signer-nonce-guard";
import { LearnedLimits } from "./learned-limits";
import { backOffMs, responseTo } from "./refusal-response";
import { RefusalsStore, type RequeueStatus } from "./refusals.store";

/** A signer as the writer shards its work: its wallet, and its shard among shardCount. */
export interface SignerSlot {
  wallet: ChainSigner;
  shard: number;
  shardCount: number;
}

/** Passes in a row that must find a nonce taken by another transaction before its actions are given back. */
const TAKEN_SIGHTINGS = 2;

/**
 * Does what a node's refusal calls for (see RefusalResponse), for the receipt watcher: bumps the
 * fees, takes back the signer's last nonces to plan them smaller or to wait for funds, gives up a
 * nonce another transaction took, and otherwise tries the same bytes again later and later. Nonces
 * are taken back only when the node holds none of them, so no nonce is ever left a gap, and the
 * actions go back in their acceptance order.
 */
@Injectable()
export class RefusalResponder {
  private readonly logger = new Logger(RefusalResponder.name);
  /**
   * Refusals in a row per signer, and when it may send again: one clock per signer, so that after a
   * spell of refusals its nonces go out again together and in order, never a later one alone.
   */
  private readonly backOff = new Map<string, { failures: number; nextAt: number }>();
  private readonly takenSightings = new Map<string, number>();
  /** Refusals the writer met while it held the signer, answered by the watcher's next pass. */
  private readonly unanswered = new Map<string, BroadcastResult>();

  constructor(
    private readonly store: RefusalsStore,
    private readonly receipts: ReceiptsStore,
    private readonly limits: LearnedLimits,
    private readonly funds: FundsGate,
    private readonly bumper: FeeBumper,
    private readonly locks: SignerLocks,
    private readonly queue: ChainWriterQueue,
    private readonly sending: SendingStore,
    private readonly chain: ChainClient,
    private readonly nonceGuard: SignerNonceGuard,
    @InjectConfig() private readonly config: AppConfig,
  ) {}

  /** The writer's refusal of a batch it just signed: the watcher answers it (the writer holds the lock its answer may need). */
  refusedToWriter(tx: SignedTransaction, result: BroadcastResult): void {
    this.unanswered.set(keyOf(tx), result);
  }

  /** A refusal the writer met for this nonce and nobody answered yet (taken: it is answered once). */
  takeUnanswered(tx: OpenTransaction): BroadcastResult | null {
    const result = this.unanswered.get(keyOf(tx)) ?? null;
    this.unanswered.delete(keyOf(tx));
    return result;
  }

  /**
   * Whether the nonce may be sent (or bumped) again now: not while it is backing off after a refusal,
   * nor while a refusal the writer met waits for the watcher's answer (a later flush or a watcher pass
   * that read it unsent before would otherwise send the refused bytes again, ahead of that answer).
   */
  mayRetry(tx: OpenTransaction): boolean {
    return !this.unanswered.has(keyOf(tx)) && (this.backOff.get(tx.signer)?.nextAt ?? 0) <= Date.now();
  }

  /** Responds to a broadcast's result (nothing to do when the node accepted it). */
  async respond(provider: JsonRpcProvider, slot: SignerSlot, tx: OpenTransaction, result: BroadcastResult): Promise<void> {
    if (result.accepted) {
      this.backOff.delete(tx.signer);
      return;
    }
    const failures = (this.backOff.get(tx.signer)?.failures ?? 0) + 1;
    this.backOff.set(tx.signer, { failures, nextAt: Date.now() + backOffMs(failures, this.config.chain.writer.pollIntervalMs) });
    const response = responseTo(result.refusal);
    if (response === "bump") await this.bump(provider, slot, tx, `refused (${result.refusal})`);
    else if (response === "replan" && result.refusal) await this.replan(provider, slot, tx, result.refusal);
    else if (response === "wait_for_funds") await this.waitForFunds(provider, slot, tx);
  }

  /**
   * True when the nonce was taken by a transaction that is not ours (the chain counts it at the
   * confirmed depth, and the node knows none of its attempts, on TAKEN_SIGHTINGS passes in a row):
   * it is given up, and every later nonce the node does not hold is taken back with it (a later one
   * sent first would carry actions ahead of what they depend on), their actions wait again in
   * acceptance order, and the signer stops until it is reconciled (its key is used elsewhere).
   */
  async takenByAnother(provider: JsonRpcProvider, slot: SignerSlot, attempts: OpenTransaction[], confirmedCount: number): Promise<boolean> {
    const nonce = attempts[0].nonce;
    const signer = attempts[0].signer;
    const key = keyOf(attempts[0]);
    if (nonce >= BigInt(confirmedCount) || !(await this.noneKnown(provider, attempts))) {
      this.takenSightings.delete(key);
      return false;
    }
    const sightings = (this.takenSightings.get(key) ?? 0) + 1;
    this.takenSightings.set(key, sightings);
    if (sightings < TAKEN_SIGHTINGS) return false;
    // Under the writer's lock: no batch is signed while the later nonces are taken back.
    const lock = await this.locks.tryAcquire(`writer:${signer}`);
    if (!lock) return false;
    let chainCount: number;
    let requeued: number;
    let withdrawFrom: bigint | null;
    try {
      this.takenSightings.delete(key);
      chainCount = await provider.getTransactionCount(signer, "pending");
      withdrawFrom = await this.unheldTailFrom(provider, signer, nonce);
      requeued = await this.store.giveUpTakenNonce(signer, nonce, BigInt(chainCount), withdrawFrom);
    } finally {
      await lock.release();
    }
    const tail = withdrawFrom === null ? "" : ` with the later nonces from ${withdrawFrom}`;
    this.logger.warn(
      { signer, nonce: nonce.toString(), chainCount, withdrawFrom: withdrawFrom?.toString() ?? null },
      `nonce ${nonce} of ${signer} was taken by another transaction: given up${tail}, ${requeued} actions wait again`,
    );
    await this.nonceGuard.stop(signer, {
      ledgerNonce: nonce.toString(),
      chainNonce: chainCount.toString(),
      displacedHashes: attempts.map((attempt) => attempt.hash),
      reason: `nonce ${nonce} was taken by a transaction the ledger does not know (the chain counts ${chainCount})`,
    });
    return true;
  }

  /** The first of the open nonces after `nonce` from which on the node holds none (null when it holds the last one, or there is none). */
  private async unheldTailFrom(provider: JsonRpcProvider, signer: string, nonce: bigint): Promise<bigint | null> {
    const later = (await this.receipts.openTransactions(signer)).filter((open) => open.nonce > nonce);
    const nonces = [...new Set(later.map((open) => open.nonce))].sort((a, b) => (a < b ? 1 : a > b ? -1 : 0));
    let from: bigint | null = null;
    for (const candidate of nonces) {
      if (
        !(await this.noneKnown(
          provider,
          later.filter((open) => open.nonce === candidate),
        ))
      )
        break;
      from = candidate;
    }
    return from;
  }

  private async bump(provider: JsonRpcProvider, slot: SignerSlot, tx: OpenTransaction, why: string): Promise<void> {
    const result = await this.bumper.replace(provider, slot.wallet, tx, why);
    // Over the fee cap: nothing was sent; the writer holds the signer's queue until fees drop.
    if (result === null) await this.funds.hold(tx.signer, slot.shard, slot.shardCount, "a replacement would exceed MAX_FEE_PER_GAS_GWEI", null);
    else if (result.accepted) this.backOff.delete(tx.signer);
  }

  /**
   * A batch above the floor goes back to be planned within what the node taught; a lone item above
   * it fails as an item. At the floor the refusal teaches nothing: the same bytes go again later.
   */
  private async replan(provider: JsonRpcProvider, slot: SignerSlot, tx: OpenTransaction, refusal: NodeRefusal): Promise<void> {
    const why = `refused (${refusal})`;
    if (tx.itemCount === 1 && this.limits.aboveFloor(tx, refusal)) await this.takeBack(provider, slot, tx, "waiting_broadcast", why, { failAlone: true });
    else if (tx.itemCount > 1 && this.limits.aboveFloor(tx, refusal)) {
      // Learned only when the nonces are taken back, so one refused batch teaches once.
      const learn = () => this.limits.learn(tx, refusal);
      await this.takeBack(provider, slot, tx, "waiting_broadcast", `${why}: planned again within smaller limits`, { learn });
    }
  }

  private async waitForFunds(provider: JsonRpcProvider, slot: SignerSlot, tx: OpenTransaction): Promise<void> {
    const needed = tx.gasLimit * tx.maxFeePerGas;
    const balance = await provider.getBalance(tx.signer, "pending");
    const reason = `the node refused nonce ${tx.nonce} for funds: balance ${balance} wei, the transaction may cost ${needed} wei`;
    await this.takeBack(provider, slot, tx, "waiting_funds", reason);
    await this.funds.hold(tx.signer, slot.shard, slot.shardCount, reason, needed);
  }

  /**
   * Takes back the signer's nonces from the refused one on, when the node holds none of them, under
   * the writer's lock (no batch is being signed meanwhile); otherwise the same bytes are tried again later.
   */
  private async takeBack(
    provider: JsonRpcProvider,
    slot: SignerSlot,
    tx: OpenTransaction,
    status: RequeueStatus,
    why: string,
    options: { failAlone?: boolean; learn?: () => boolean } = {},
  ): Promise<void> {
    const lock = await this.locks.tryAcquire(`writer:${tx.signer}`);
    if (!lock) return;
    try {
      const tail = (await this.receipts.openTransactions(tx.signer)).filter((open) => open.nonce >= tx.nonce);
      const pendingCount = await provider.getTransactionCount(tx.signer, "pending");
      if (BigInt(pendingCount) > tx.nonce || !(await this.noneKnown(provider, tail))) {
        this.logger.warn({ signer: tx.signer, nonce: tx.nonce.toString() }, `nonce ${tx.nonce} ${why}; the node holds a later one, so it is tried again later`);
        return;
      }
      if (options.learn && !options.learn()) return;
      // A lone item the node refuses as too large can never go: it fails as an item, the rest go on.
      const alone = options.failAlone ? await this.store.actionIdsOf(tx.signer, tx.nonce) : [];
      const requeued = await this.store.withdrawFrom(tx.signer, tx.nonce, status);
      if (alone.length === 1) await this.failTooLarge(alone[0], why);
      this.logger.warn(
        { signer: tx.signer, nonce: tx.nonce.toString(), requeued },
        `nonce ${tx.nonce} ${why}: ${requeued} actions of nonces ${tx.nonce}…${tail[tail.length - 1].nonce} wait again as ${status}`,
      );
      this.backOff.delete(tx.signer);
    } finally {
      await lock.release();
    }
    await this.queue.requestFlush("refusal", slot.shard);
  }

  private async failTooLarge(actionId: string, why: string): Promise<void> {
    const reason = `the item alone was ${why} by the node`;
    const failed = await this.sending.failUnencodable(
      [{ id: actionId, reason, code: "onchain_item_too_large" }],
      await this.chain.chainId(),
      this.chain.registryAddress,
    );
    logUnencodable(this.logger, failed, [{ id: actionId, reason }]);
  }

  private async noneKnown(provider: JsonRpcProvider, attempts: OpenTransaction[]): Promise<boolean> {
    for (const attempt of attempts) if (await provider.getTransaction(attempt.hash)) return false;
    return true;
  }
}

function keyOf(tx: SignedTransaction): string {
  return `${tx.signer}:${tx.nonce}`;
}
