import { Injectable } from "@nestjs/common";
import { HealthIndicatorService } from "@nestjs/terminus";

import { describeOverCap, FeeCapGuard } from "./fee-cap.guard";

/**
 * MAX_FEE_PER_GAS_GWEI for a health check: degraded (the service accepts work, but nothing goes to
 * the chain) while the fees a transaction needs exceed the cap, with the reason. Read from the
 * writer's last quote: it never calls the chain itself.
 */
@Injectable()
export class FeeCapIndicator {
  constructor(
    private readonly indicators: HealthIndicatorService,
    private readonly guard: FeeCapGuard,
  ) {}

  /** Whether there is a cap to report on. */
  get configured(): boolean {
    return this.guard.cap !== null;
  }

  isHealthy(key = "fees") {
    const session = this.indicators.check(key);
    const cap = this.guard.cap;
    const { checkedAt, quote, overCapSince } = this.guard.state;
    if (cap === null || quote === null || checkedAt === null) return session.up({ checked: false, maxFeePerGasCap: cap?.toString() ?? null });
    const details = {
      checked: true,
      checkedAt: checkedAt.toISOString(),
      maxFeePerGasCap: cap.toString(),
      baseFeePerGas: quote.baseFeePerGas.toString(),
      maxPriorityFeePerGas: quote.maxPriorityFeePerGas.toString(),
      neededPerGas: quote.neededPerGas.toString(),
    };
    if (!overCapSince) return session.up(details);
    return session.degraded({ ...details, overCapSince: overCapSince.toISOString(), reason: describeOverCap(quote, cap) });
  }
}
