import type { Provider, Type } from "@nestjs/common";
import { getToken } from "@willsoto/nestjs-prometheus";
import type { Gauge, Registry } from "prom-client";

import { fillLedgerActions, fillOldestWaiting, fillOutboxCallbacks, LedgerBacklog, type LedgerBacklogSnapshot } from "./ledger-backlog";
import { type MetricDefinition, type MetricKey, METRICS } from "./metric-definitions";
import { createMetric, METRICS_REGISTRY } from "./metrics.registry";
import { fillQueueJobs, QueueDepths, type QueueDepthsSnapshot } from "./queue-depths";

interface ScrapeSource<T> {
  read(): Promise<T | null>;
}

/** A gauge filled at every scrape from `source`; left empty when the source cannot be read. */
function scrapedGauge<T>(definition: MetricDefinition, source: Type<ScrapeSource<T>>, fill: (gauge: Gauge, snapshot: T) => void): Provider {
  return {
    provide: getToken(definition.name),
    inject: [METRICS_REGISTRY, source],
    useFactory: (registry: Registry, reader: ScrapeSource<T>) =>
      createMetric(definition, registry, async (gauge) => {
        const snapshot = await reader.read();
        gauge.reset();
        if (snapshot !== null) fill(gauge, snapshot);
      }),
  };
}

const SCRAPED: Partial<Record<MetricKey, Provider>> = {
  ledgerActions: scrapedGauge<LedgerBacklogSnapshot>(METRICS.ledgerActions, LedgerBacklog, fillLedgerActions),
  ledgerOldestWaiting: scrapedGauge<LedgerBacklogSnapshot>(METRICS.ledgerOldestWaiting, LedgerBacklog, fillOldestWaiting),
  outboxCallbacks: scrapedGauge<LedgerBacklogSnapshot>(METRICS.outboxCallbacks, LedgerBacklog, fillOutboxCallbacks),
  queueJobs: scrapedGauge<QueueDepthsSnapshot>(METRICS.queueJobs, QueueDepths, fillQueueJobs),
};

/** One provider per metric, injectable anywhere with @InjectMetric(METRICS.<key>.name). */
export const METRIC_PROVIDERS: Provider[] = (Object.keys(METRICS) as MetricKey[]).map(
  (key) =>
    SCRAPED[key] ?? {
      provide: getToken(METRICS[key].name),
      inject: [METRICS_REGISTRY],
      useFactory: (registry: Registry) => createMetric(METRICS[key], registry),
    },
);
