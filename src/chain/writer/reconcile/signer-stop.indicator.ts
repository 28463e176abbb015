import { Injectable } from "@nestjs/common";
import { HealthIndicatorService } from "@nestjs/terminus";

import { reconcileCommand } from "./signer-nonce-guard";
import { SignerStopsStore } from "./signer-stops.store";

/**
 * The signers stopped because the chain took their nonces with transactions the ledger does not
 * know: degraded (the service accepts work, but their actions wait) with each one's nonces, the
 * hashes involved, and the command that lets it go on. Read from the ledger, where the stop is kept.
 */
@Injectable()
export class SignerStopIndicator {
  constructor(
    private readonly indicators: HealthIndicatorService,
    private readonly stops: SignerStopsStore,
  ) {}

  async isHealthy(key = "signerNonces") {
    const session = this.indicators.check(key);
    let stopped;
    try {
      stopped = await this.stops.stopped();
    } catch (error) {
      // The database check reports the outage; this one only says it could not look.
      return session.down({ lastError: (error as Error).message });
    }
    if (stopped.length === 0) return session.up({ stoppedSigners: {} });
    const stoppedSigners = Object.fromEntries(
      stopped.map(({ signer, since, ...detail }) => [signer, { since: since.toISOString(), ...detail, reconcile: reconcileCommand(signer) }]),
    );
    const reason = stopped.map((stop) => `signer ${stop.signer} stopped: ${stop.reason}; run ${reconcileCommand(stop.signer)}`).join("; ");
    return session.degraded({ stoppedSigners, reason });
  }
}
