import { Injectable } from "@nestjs/common";
import { InjectMetric } from "@willsoto/nestjs-prometheus";
import type { Counter, Histogram } from "prom-client";

import { METRICS } from "../../metrics/metric-definitions";
import type { ClosedAction } from "./closed-action";
import type { MinedReceipt } from "./receipts/mined-receipt";
import type { OpenTransaction } from "./signed-transaction";

/** The chain writer's metrics, recorded once per closed transaction (by the worker that closed it). */
@Injectable()
export class WriterMetrics {
  constructor(
    @InjectMetric(METRICS.batchActions.name) private readonly batchActions: Histogram<string>,
    @InjectMetric(METRICS.transactionGas.name) private readonly transactionGas: Histogram<string>,
    @InjectMetric(METRICS.gasPerAction.name) private readonly gasPerAction: Histogram<string>,
    @InjectMetric(METRICS.confirmationSeconds.name) private readonly confirmation: Histogram<string>,
    @InjectMetric(METRICS.replacements.name) private readonly replacements: Counter<string>,
    @InjectMetric(METRICS.organizationGas.name) private readonly organizationGas: Counter<string>,
  ) {}

  transactionClosed(transaction: OpenTransaction, receipt: MinedReceipt, actions: readonly ClosedAction[], now = Date.now()): void {
    const confirmed = receipt.status === 1;
    const gasUsed = Number(receipt.gasUsed);
    this.batchActions.observe({ status: confirmed ? "confirmed" : "reverted" }, transaction.itemCount);
    this.transactionGas.observe(gasUsed);
    if (confirmed && transaction.itemCount > 0) this.gasPerAction.observe(gasUsed / transaction.itemCount);
    for (const action of actions) {
      // A reverted batch's actions go back in line: they are not final yet.
      if (action.status !== "waiting_broadcast") this.confirmation.observe({ status: action.status }, Math.max(0, now - action.acceptedAt.getTime()) / 1000);
    }
  }

  /** A final receipt's gas, as split among the organizations whose items it carried (see splitReceipt). */
  gasAttributed(gasByOrganization: ReadonlyMap<string, bigint>): void {
    for (const [organization, gas] of gasByOrganization) if (gas > 0n) this.organizationGas.inc({ organization }, Number(gas));
  }

  transactionReplaced(): void {
    this.replacements.inc();
  }
}
