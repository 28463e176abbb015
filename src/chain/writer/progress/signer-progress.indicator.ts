import { Injectable } from "@nestjs/common";
import { HealthIndicatorService } from "@nestjs/terminus";

import { SignerProgress } from "./signer-progress";

/**
 * The signers' progress for a health check: degraded (the service accepts work, but a signer's
 * transactions do not get through) while any signer is stuck, with each stuck signer's address,
 * since when and why. Read from the tracker: it never calls the chain itself.
 */
@Injectable()
export class SignerProgressIndicator {
  constructor(
    private readonly indicators: HealthIndicatorService,
    private readonly progress: SignerProgress,
  ) {}

  isHealthy(key = "chainWriter") {
    const session = this.indicators.check(key);
    const stuck = this.progress.stuck();
    if (stuck.length === 0) return session.up({ stuckSigners: {} });
    const stuckSigners = Object.fromEntries(stuck.map((entry) => [entry.signer, { since: entry.since.toISOString(), reason: entry.reason }]));
    return session.degraded({ stuckSigners, reason: stuck.map((entry) => `signer ${entry.signer} is stuck: ${entry.reason}`).join("; ") });
  }
}
