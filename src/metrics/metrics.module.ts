import { Global, Module } from "@nestjs/common";
import { DiscoveryModule } from "@nestjs/core";
import { PrometheusModule } from "@willsoto/nestjs-prometheus";

import { HttpMetrics } from "./http/http-metrics";
import { LedgerBacklog } from "./ledger-backlog";
import { METRIC_PROVIDERS } from "./metric-providers";
import { MetricsController } from "./metrics.controller";
import { createRegistry, METRICS_REGISTRY } from "./metrics.registry";
import { QueueDepths } from "./queue-depths";

/**
 * Prometheus metrics for every role: GET /metrics, and every metric of metric-definitions.ts
 * injectable anywhere (global) with @InjectMetric. prom-client's own global registry and default
 * collection are left unused: each application has its registry.
 */
@Global()
@Module({
  imports: [DiscoveryModule, PrometheusModule.register({ controller: MetricsController, defaultMetrics: { enabled: false } })],
  providers: [{ provide: METRICS_REGISTRY, useFactory: createRegistry }, LedgerBacklog, QueueDepths, HttpMetrics, ...METRIC_PROVIDERS],
  exports: [METRICS_REGISTRY, HttpMetrics, ...METRIC_PROVIDERS],
})
export class MetricsModule {}
