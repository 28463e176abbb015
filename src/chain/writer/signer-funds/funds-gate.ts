import { Injectable, Logger } from "@nestjs/common";
import { InjectMetric } from "@willsoto/nestjs-prometheus";
import type { JsonRpcProvider } from "ethers";
import type { Gauge } from "prom-client";

import { METRICS } from "../../../metrics/metric-definitions";
import { ChainWriterQueue } from "../../queue/chain-writer.queue";
import type { Fees } from "../current-fees";
import type { GateAnswer } from "../gate-answer";
import { FeeCapGuard } from "../fee-cap/fee-cap.guard";
import { SignerProgress } from "../progress/signer-progress";
import { RefusalsStore } from "../refusals/refusals.store";
import type { SignerSlot } from "../signer-slot";

/** How soon a signer held for funds or fees is looked at again. */
export const FUNDS_RECHECK_MS = 3_000;

/** What a signer that can pay may spend: the fees its transactions are signed with, and its balance left for them. */
export interface SpendableFunds {
  fees: Fees;
  balance: bigint;
}

export const FEES_OVER_CAP = "fees above MAX_FEE_PER_GAS_GWEI";

export function shortOfFunds(balance: bigint, needed: bigint): string {
  return `balance ${balance} wei, below the ${needed} wei its next transaction may cost (gas limit × max fee)`;
}

interface Waiting {
  reason: string;
  since: Date;
  /** What its next transaction may cost, in wei; null when it waits for fees, not funds. */
  neededWei: bigint | null;
}

/**
 * A signer that cannot pay for its next transaction (its balance is below the batch's gas limit
 * times its max fee, the node refused it for funds, or fees are above MAX_FEE_PER_GAS_GWEI) sends
 * nothing: its shard's queued actions wait as waiting_funds, readiness and chain_signer_waiting_funds
 * say why, and the writer looks again every FUNDS_RECHECK_MS. Once it can pay, the actions are
 * queued again in their order and sending resumes by itself.
 */
@Injectable()
export class FundsGate {
  private readonly logger = new Logger(FundsGate.name);
  private readonly waiting = new Map<string, Waiting>();

  constructor(
    private readonly store: RefusalsStore,
    private readonly queue: ChainWriterQueue,
    private readonly progress: SignerProgress,
    private readonly feeCap: FeeCapGuard,
    @InjectMetric(METRICS.signerWaitingFunds.name) private readonly waitingGauge: Gauge<string>,
  ) {}

  /**
   * Whether the signer can pay for its next transaction now: fees under MAX_FEE_PER_GAS_GWEI, and a
   * balance that covers what it was last found to need. If not, its actions are held; if so, any it
   * held are released.
   */
  async check(provider: JsonRpcProvider, slot: SignerSlot): Promise<GateAnswer<SpendableFunds>> {
    const signer = slot.wallet.address;
    // Null while fees are over the cap: the guard wakes the writer again later.
    const fees = await this.feeCap.fees(provider);
    if (!fees) return this.holding(signer, slot, FEES_OVER_CAP, null);
    const balance = await provider.getBalance(signer, "pending");
    const needed = this.neededWei(signer);
    if (needed !== null && balance < needed) return this.holding(signer, slot, shortOfFunds(balance, needed), needed);
    await this.resume(signer, slot.shard, slot.shardCount);
    return { go: true, fees, balance };
  }

  /** Holds the signer for a cost its balance does not cover; the answer says why. */
  async holdFor(slot: SignerSlot, balance: bigint, cost: bigint): Promise<GateAnswer<SpendableFunds>> {
    return this.holding(slot.wallet.address, slot, shortOfFunds(balance, cost), cost);
  }

  /** What the signer's next transaction was found to need, while it waits for funds; null otherwise. */
  neededWei(signer: string): bigint | null {
    return this.waiting.get(signer)?.neededWei ?? null;
  }

  /** Holds the signer's queued actions as waiting_funds and arranges a later look. */
  async hold(signer: string, shard: number, shardCount: number, reason: string, neededWei: bigint | null): Promise<void> {
    const held = await this.store.hold(shardCount, shard);
    const was = this.waiting.get(signer);
    this.waiting.set(signer, { reason, since: was?.since ?? new Date(), neededWei });
    if (!was) this.logger.warn({ signer, reason }, `signer ${signer} cannot pay for its next transaction (${reason}): ${held} actions wait as waiting_funds`);
    this.progress.waitingFunds(signer, reason);
    this.waitingGauge.set({ signer }, 1);
    await this.queue.requestFlush("funds", shard, FUNDS_RECHECK_MS);
  }

  private async holding(signer: string, slot: SignerSlot, reason: string, neededWei: bigint | null): Promise<GateAnswer<SpendableFunds>> {
    await this.hold(signer, slot.shard, slot.shardCount, reason, neededWei);
    return { go: false, reason };
  }

  /** The signer can pay: its waiting_funds actions are queued again. */
  async resume(signer: string, shard: number, shardCount: number): Promise<void> {
    const released = await this.store.release(shardCount, shard);
    const was = this.waiting.get(signer);
    if (!was && released === 0) return;
    this.waiting.delete(signer);
    this.progress.waitingFunds(signer, null);
    this.waitingGauge.set({ signer }, 0);
    const seconds = was ? Math.round((Date.now() - was.since.getTime()) / 1000) : 0;
    this.logger.log({ signer }, `signer ${signer} can pay again after ${seconds} s: ${released} actions queued again`);
  }
}
