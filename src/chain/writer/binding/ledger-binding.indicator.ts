import { Injectable } from "@nestjs/common";
import { HealthIndicatorService } from "@nestjs/terminus";

import { LedgerBinding } from "./ledger-binding";
import type { RegistryTarget } from "./ledger-binding.store";

/**
 * The ledger's binding for a health check: degraded (the service accepts work, but nothing goes to
 * the chain) while the writer refuses to write, with the ledger's registry, the configured one and
 * what to do. Read from the binding's last verdict: it never calls the chain itself.
 */
@Injectable()
export class LedgerBindingIndicator {
  constructor(
    private readonly indicators: HealthIndicatorService,
    private readonly binding: LedgerBinding,
  ) {}

  isHealthy(key = "ledgerBinding") {
    const session = this.indicators.check(key);
    const verdict = this.binding.verdict;
    if (verdict === null) return session.up({ checked: false });
    if (verdict.allowed) return session.up({ checked: true, ledger: shown(verdict.bound) });
    return session.degraded({
      checked: true,
      ledger: verdict.ledger ? shown(verdict.ledger) : null,
      configured: shown(verdict.configured),
      since: verdict.since.toISOString(),
      reason: verdict.reason,
    });
  }
}

function shown(target: RegistryTarget) {
  return { chainId: target.chainId.toString(), registryAddress: target.registryAddress, fromBlock: target.fromBlock.toString() };
}
