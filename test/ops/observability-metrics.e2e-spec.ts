import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { METRICS } from "../../src/metrics/metric-definitions";
import { scrapeMetrics } from "../support/metrics-scrape";
import { startTestApp, type TestApp } from "../support/test-app";
import { alertRules, alertTests, dashboardQueries, selectorsOf, seriesMetric, type Selector, withGrafanaVariables } from "./observability-files";

/** Series Prometheus makes itself for every target (not the service's): alerts may name them. */
const PROMETHEUS_SERIES = new Set(["up"]);
/** Labels Prometheus adds to every series it scrapes. */
const TARGET_LABELS = ["job", "instance"];

/**
 * The series names the exposition declares (`# TYPE name type`), as Prometheus stores them:
 * a histogram as name_bucket, name_sum and name_count, a summary as name, name_sum and name_count.
 * Declared, not sampled: a labelled counter nobody has moved yet has no sample but is exported.
 */
function exportedSeries(text: string): Map<string, string> {
  const series = new Map<string, string>();
  for (const [, name, type] of text.matchAll(/^# TYPE (\S+) (\S+)$/gm)) {
    const suffixes = type === "histogram" ? ["_bucket", "_sum", "_count"] : type === "summary" ? ["", "_sum", "_count"] : [""];
    for (const suffix of suffixes) series.set(name + suffix, name);
  }
  return series;
}

/** The labels each service metric has (metric-definitions.ts), under every series name Prometheus stores. */
function definedLabels(): Map<string, string[]> {
  const labels = new Map<string, string[]>();
  for (const { name, type, labelNames } of Object.values(METRICS)) {
    if (type === "histogram") {
      labels.set(`${name}_bucket`, [...labelNames, "le"]);
      labels.set(`${name}_sum`, [...labelNames]);
      labels.set(`${name}_count`, [...labelNames]);
    } else {
      labels.set(name, [...labelNames]);
    }
  }
  return labels;
}

describe("the alert rules and the dashboard against GET /metrics (one app)", () => {
  let testApp: TestApp;
  let exported: Map<string, string>;

  beforeAll(async () => {
    testApp = await startTestApp();
    const scrape = await scrapeMetrics(testApp.opsUrl);
    expect(scrape.status).toBe(200);
    exported = exportedSeries(scrape.text);
  });

  afterAll(async () => {
    await testApp?.close();
  });

  /** The selectors of `expressions` that name a series the service does not export, with where they stand. */
  function unknown(expressions: { where: string; expr: string }[], allowed: Set<string> = new Set()): string[] {
    return expressions.flatMap(({ where, expr }) =>
      selectorsOf(expr)
        .filter(({ metric }) => !exported.has(metric) && !allowed.has(metric))
        .map(({ metric }) => `${where}: ${metric}`),
    );
  }

  /** The selectors that match on a label their metric does not have (a typo there silently matches nothing, or everything). */
  function unknownLabels(expressions: { where: string; expr: string }[]): string[] {
    const labels = definedLabels();
    const misses = (where: string, { metric, labels: matched }: Selector) =>
      matched.filter((label) => !TARGET_LABELS.includes(label) && !(labels.get(metric) ?? []).includes(label)).map((label) => `${where}: ${metric}{${label}}`);
    return expressions.flatMap(({ where, expr }) => selectorsOf(expr).flatMap((selector) => misses(where, selector)));
  }

  const alertExpressions = () => alertRules().map((rule) => ({ where: rule.alert, expr: rule.expr }));
  const dashboardExpressions = () => dashboardQueries().map(({ panel, expr }) => ({ where: panel, expr: withGrafanaVariables(expr) }));

  it("sees the service's metrics and Node's process metrics declared in the scrape", () => {
    for (const { name } of Object.values(METRICS)) expect([...exported.values()], name).toContain(name);
    expect(exported.has("process_resident_memory_bytes")).toBe(true);
  });

  it("finds every metric the dashboard queries exported", () => {
    const queries = dashboardExpressions();
    expect(queries.length).toBeGreaterThan(20);
    expect(unknown(queries)).toEqual([]);
  });

  it("finds every metric the alert rules read exported (Prometheus's own up aside)", () => {
    expect(unknown(alertExpressions(), PROMETHEUS_SERIES)).toEqual([]);
  });

  it("finds every series of the rules' unit tests exported, so the tests feed what the service sends", () => {
    const series = alertTests().flatMap((test) => test.input_series.map(({ series: selector }) => ({ where: test.name, expr: selector })));
    expect(unknown(series, PROMETHEUS_SERIES)).toEqual([]);
    expect(series.map(({ expr }) => seriesMetric(expr)).filter((metric) => metric.startsWith("ticket_registry_")).length).toBeGreaterThan(20);
  });

  it("matches only on labels the metrics have, in the dashboard and in the rules", () => {
    expect(unknownLabels(dashboardExpressions())).toEqual([]);
    expect(unknownLabels(alertExpressions().filter(({ expr }) => !selectorsOf(expr).some(({ metric }) => PROMETHEUS_SERIES.has(metric))))).toEqual([]);
  });

  it("would notice a metric the service does not export", () => {
    expect(unknown([{ where: "made up", expr: "sum(rate(ticket_registry_tickets_sold_total[5m]))" }])).toEqual(["made up: ticket_registry_tickets_sold_total"]);
    expect(unknownLabels([{ where: "made up", expr: 'ticket_registry_chain_signer_stuck{address="0x1"}' }])).toEqual([
      "made up: ticket_registry_chain_signer_stuck{address}",
    ]);
  });
});
