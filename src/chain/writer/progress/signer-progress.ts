import { Injectable, Logger } from "@nestjs/common";
import { InjectMetric } from "@willsoto/nestjs-prometheus";
import type { Counter, Gauge } from "prom-client";

import type { AppConfig } from "../../../config/app-config";
import { InjectConfig } from "../../../config/config.module";
import { METRICS } from "../../../metrics/metric-definitions";
import type { BroadcastObserver, BroadcastResult } from "../broadcast/broadcast";
import type { NodeRefusal } from "../broadcast/node-refusal";
import type { SignedTransaction } from "../signed-transaction";

/** This many refused broadcasts in a row make a signer stuck. */
export const STUCK_AFTER_REFUSALS = 3;

export interface StuckSigner {
  signer: string;
  since: Date;
  reason: string;
}

interface SignerState {
  /** Refused broadcasts since the last accepted one, and the class of the latest. */
  refusedInARow: number;
  lastRefusal: NodeRefusal | null;
  /** The oldest in-flight nonce the receipt watcher found unmined, and since when it counts as waiting. */
  oldest: { nonce: bigint; since: Date } | null;
  /** Why its actions wait as waiting_funds (see FundsGate); null while they do not. */
  waitingFunds: string | null;
  stuckSince: Date | null;
}

/**
 * Whether each signer of this worker makes progress. Observation only: it changes nothing the
 * writer does. A signer is stuck while its oldest in-flight nonce has stayed unmined longer than
 * SIGNER_STUCK_AFTER_MS, while its last STUCK_AFTER_REFUSALS broadcasts were all refused, or while
 * it waits for funds; it is no longer stuck once a broadcast is accepted and the nonce is mined. The start and the end are
 * logged once each; chain_signer_stuck follows, and SignerProgressIndicator reports it in readiness.
 * Every refusal is counted in chain_broadcast_refusals_total by its class.
 */
@Injectable()
export class SignerProgress implements BroadcastObserver {
  private readonly logger = new Logger(SignerProgress.name);
  private readonly signers = new Map<string, SignerState>();

  constructor(
    @InjectConfig() private readonly config: AppConfig,
    @InjectMetric(METRICS.broadcastRefusals.name) private readonly refusals: Counter<string>,
    @InjectMetric(METRICS.signerStuck.name) private readonly stuckGauge: Gauge<string>,
  ) {}

  broadcastResult(tx: SignedTransaction, result: BroadcastResult): void {
    if (result.refusal !== null) this.refusals.inc({ signer: tx.signer, reason: result.refusal });
    const state = this.stateOf(tx.signer);
    if (result.accepted) {
      state.refusedInARow = 0;
      state.lastRefusal = null;
    } else if (result.refusal !== null) {
      state.refusedInARow += 1;
      state.lastRefusal = result.refusal;
    }
    this.evaluate(tx.signer, state);
  }

  /**
   * The receipt watcher's finding after a pass over a signer: its oldest in-flight nonce that is not
   * mined, with when its first attempt was signed; null when every in-flight nonce is mined (or none
   * is in flight). A nonce counts as waiting from its signing, or from when the one before it was
   * seen mined if that was later.
   */
  oldestUnmined(signer: string, oldest: { nonce: bigint; signedAt: Date } | null, now = new Date()): void {
    const state = this.stateOf(signer);
    if (oldest === null) state.oldest = null;
    else if (state.oldest?.nonce !== oldest.nonce) {
      const since = state.oldest === null ? oldest.signedAt : new Date(Math.max(now.getTime(), oldest.signedAt.getTime()));
      state.oldest = { nonce: oldest.nonce, since };
    }
    this.evaluate(signer, state, now);
  }

  /** FundsGate's finding: why the signer's actions wait as waiting_funds, or null once they no longer do. */
  waitingFunds(signer: string, reason: string | null): void {
    const state = this.stateOf(signer);
    state.waitingFunds = reason;
    this.evaluate(signer, state);
  }

  /** The signers stuck now, each with its reason. */
  stuck(now = new Date()): StuckSigner[] {
    const stuck: StuckSigner[] = [];
    for (const [signer, state] of this.signers) {
      const reason = this.evaluate(signer, state, now);
      if (reason !== null && state.stuckSince) stuck.push({ signer, since: state.stuckSince, reason });
    }
    return stuck;
  }

  private stateOf(signer: string): SignerState {
    let state = this.signers.get(signer);
    if (!state) {
      state = { refusedInARow: 0, lastRefusal: null, oldest: null, waitingFunds: null, stuckSince: null };
      this.signers.set(signer, state);
      this.stuckGauge.set({ signer }, 0);
    }
    return state;
  }

  /** Why the signer is stuck now (null when it is not), logging and setting the gauge on a change. */
  private evaluate(signer: string, state: SignerState, now = new Date()): string | null {
    const reason = this.reasonOf(state, now);
    if (reason !== null && !state.stuckSince) {
      state.stuckSince = now;
      this.stuckGauge.set({ signer }, 1);
      this.logger.warn({ signer, reason }, `signer ${signer} is stuck: ${reason}`);
    } else if (reason === null && state.stuckSince) {
      const seconds = Math.round((now.getTime() - state.stuckSince.getTime()) / 1000);
      state.stuckSince = null;
      this.stuckGauge.set({ signer }, 0);
      this.logger.log({ signer }, `signer ${signer} makes progress again after ${seconds} s stuck`);
    }
    return reason;
  }

  private reasonOf(state: SignerState, now: Date): string | null {
    if (state.waitingFunds !== null) return `waiting for funds: ${state.waitingFunds}`;
    if (state.refusedInARow >= STUCK_AFTER_REFUSALS && state.lastRefusal !== null) {
      return `last ${state.refusedInARow} broadcasts refused: ${state.lastRefusal}`;
    }
    if (state.oldest === null) return null;
    const waited = now.getTime() - state.oldest.since.getTime();
    if (waited <= this.config.chain.writer.signerStuckAfterMs) return null;
    return `nonce ${state.oldest.nonce} unmined for ${Math.floor(waited / 1000)} s`;
  }
}
