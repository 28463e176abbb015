import { Injectable, Logger } from "@nestjs/common";
import { InjectMetric } from "@willsoto/nestjs-prometheus";
import type { Gauge } from "prom-client";

import { METRICS } from "../../../metrics/metric-definitions";
import { ChainWriterQueue } from "../../queue/chain-writer.queue";
import { SignerProgress } from "../progress/signer-progress";
import { RefusalsStore } from "../refusals/refusals.store";

/** How soon a signer held for funds or fees is looked at again. */
export const FUNDS_RECHECK_MS = 3_000;

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
    @InjectMetric(METRICS.signerWaitingFunds.name) private readonly waitingGauge: Gauge<string>,
  ) {}

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
