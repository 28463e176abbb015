import { Injectable } from "@nestjs/common";
import { HealthIndicatorService } from "@nestjs/terminus";

import { describeFunds } from "./signer-funds";
import { SignerFundsMonitor } from "./signer-funds.monitor";

/**
 * The signers' funds for a health check: degraded (the service still works, but a signer will stop
 * paying for its batches within the hour) when any balance is below what the next hour needs, with
 * the details of every signer. Read from the monitor's last check: it never calls the chain itself.
 */
@Injectable()
export class SignerFundsIndicator {
  constructor(
    private readonly indicators: HealthIndicatorService,
    private readonly monitor: SignerFundsMonitor,
  ) {}

  isHealthy(key = "signerFunds") {
    const session = this.indicators.check(key);
    const { report, failure } = this.monitor.state;
    // lastError: why the latest check failed (the report is then the one before), null when it worked.
    if (!report) return session.up({ checked: false, lastError: failure });
    const details = {
      checked: true,
      checkedAt: report.checkedAt.toISOString(),
      maxFeePerGas: report.maxFeePerGas.toString(),
      signers: Object.fromEntries(report.signers.map((signer) => [signer.address, describeFunds(signer)])),
      lastError: failure,
    };
    return report.signers.some((signer) => signer.short) ? session.degraded(details) : session.up(details);
  }
}
