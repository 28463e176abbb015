import { Injectable, Logger } from "@nestjs/common";
import { InjectMetric } from "@willsoto/nestjs-prometheus";
import type { Gauge } from "prom-client";

import { METRICS } from "../../../metrics/metric-definitions";
import { type StopDetail, SignerStopsStore } from "./signer-stops.store";

/** What an operator runs to let a stopped signer sign again. */
export const reconcileCommand = (signer: string) => `npm run cli -- signer reconcile ${signer}`;

/**
 * Keeps a signer from signing while the chain holds nonces the ledger does not know. Before a flush
 * signs, the chain's pending count is compared with the ledger's next nonce: every nonce the ledger
 * hands out is committed before it is broadcast, so a chain count above it can only come from
 * transactions signed elsewhere (the key used by another ledger, a ledger restored from an older
 * backup). Such a signer stops (persisted, so a restart does not forget) until it is reconciled:
 * signing on would collide with nonces, and actions could reach the chain out of order.
 */
@Injectable()
export class SignerNonceGuard {
  private readonly logger = new Logger(SignerNonceGuard.name);

  constructor(
    private readonly stops: SignerStopsStore,
    @InjectMetric(METRICS.signerStopped.name) private readonly stoppedGauge: Gauge<string>,
  ) {}

  /**
   * Whether the signer may sign now. `chainPending` must be read before this call: read in this order,
   * the ledger's next nonce is never below the chain's count for the service's own transactions.
   */
  async maySign(signer: string, chainPending: bigint): Promise<boolean> {
    const state = await this.stops.stateOf(signer);
    if (!state) return true;
    if (state.stop) {
      this.stoppedGauge.set({ signer }, 1);
      return false;
    }
    if (chainPending <= state.nextNonce) {
      this.stoppedGauge.set({ signer }, 0);
      return true;
    }
    const taken = chainPending - state.nextNonce;
    await this.stop(signer, {
      ledgerNonce: state.nextNonce.toString(),
      chainNonce: chainPending.toString(),
      displacedHashes: [],
      reason: `the chain counts ${chainPending} transactions of ${signer}, the ledger's next nonce is ${state.nextNonce}: ${taken} nonce(s) taken by transactions the ledger does not know`,
    });
    return false;
  }

  /** Stops the signer (a nonce taken by another transaction, seen before or after signing). */
  async stop(signer: string, detail: StopDetail): Promise<void> {
    this.stoppedGauge.set({ signer }, 1);
    if (!(await this.stops.stop(signer, detail))) return;
    this.logger.error(
      { signer, ledgerNonce: detail.ledgerNonce, chainNonce: detail.chainNonce, displacedHashes: detail.displacedHashes },
      `signer ${signer} stopped: ${detail.reason}; nothing is signed until an operator runs ${reconcileCommand(signer)}`,
    );
  }
}
