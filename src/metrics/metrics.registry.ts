import { collectDefaultMetrics, Counter, Gauge, Histogram, type Metric, Registry } from "prom-client";

import type { MetricDefinition } from "./metric-definitions";

/** The application's own registry (not prom-client's global one), so two apps in one process never share a metric. */
export const METRICS_REGISTRY = Symbol("METRICS_REGISTRY");

/** A registry with the Node process metrics (CPU, memory, event loop, GC) under their standard names. */
export function createRegistry(): Registry {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  return registry;
}

/** Creates a metric in `registry`; `collect` runs at every scrape, before the metric is read. */
export function createMetric(definition: MetricDefinition, registry: Registry, collect?: (metric: Gauge) => Promise<void>): Metric {
  const common = { name: definition.name, help: definition.help, labelNames: [...definition.labelNames], registers: [registry] };
  switch (definition.type) {
    case "counter":
      return new Counter(common);
    case "histogram":
      return new Histogram({ ...common, ...(definition.buckets && { buckets: [...definition.buckets] }) });
    case "gauge":
      return new Gauge({
        ...common,
        ...(collect && {
          async collect(this: Gauge) {
            await collect(this);
          },
        }),
      });
  }
}
