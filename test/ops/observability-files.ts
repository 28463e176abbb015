import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";

import { parser } from "@prometheus-io/lezer-promql";
import { parse } from "yaml";

export const ROOT = resolve(__dirname, "..", "..");
export const ALERTS_FILE = join(ROOT, "ops", "prometheus", "alerts.yml");
export const ALERT_TESTS_FILE = join(ROOT, "ops", "prometheus", "alerts.test.yml");
export const PROMETHEUS_CONFIG_FILE = join(ROOT, "ops", "prometheus", "prometheus.yml");
export const DASHBOARD_FILE = join(ROOT, "ops", "grafana", "dashboards", "ticket-registry.json");

export interface AlertRule {
  alert: string;
  expr: string;
  for?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}

export interface AlertRuleTest {
  name: string;
  input_series: { series: string; values: string }[];
  alert_rule_test?: { eval_time: string; alertname: string; exp_alerts: { exp_labels?: Record<string, string> }[] }[];
}

export function readYaml<T>(file: string): T {
  return parse(readFileSync(file, "utf8")) as T;
}

export function alertRules(): AlertRule[] {
  const { groups } = readYaml<{ groups: { name: string; rules: AlertRule[] }[] }>(ALERTS_FILE);
  return groups.flatMap((group) => group.rules);
}

export function alertTests(): AlertRuleTest[] {
  return readYaml<{ tests: AlertRuleTest[] }>(ALERT_TESTS_FILE).tests;
}

interface DashboardPanel {
  title?: string;
  targets?: { expr?: string }[];
  panels?: DashboardPanel[];
}

/** Every query of the dashboard, with the title of its panel (rows' nested panels included). */
export function dashboardQueries(): { panel: string; expr: string }[] {
  const dashboard = JSON.parse(readFileSync(DASHBOARD_FILE, "utf8")) as { panels: DashboardPanel[] };
  const walk = (panels: DashboardPanel[]): { panel: string; expr: string }[] =>
    panels.flatMap((panel) => [
      ...(panel.targets ?? []).map((target) => {
        if (typeof target.expr !== "string" || target.expr.trim() === "") throw new Error(`panel "${panel.title}" has a query without expr`);
        return { panel: panel.title ?? "(untitled)", expr: target.expr };
      }),
      ...walk(panel.panels ?? []),
    ]);
  return walk(dashboard.panels);
}

/** Grafana's own interval variables, replaced by a duration as Grafana does before it sends the query. */
export function withGrafanaVariables(expr: string): string {
  return expr.replace(/\$__(rate_interval|interval|range)\b/g, "5m");
}

export interface Selector {
  metric: string;
  labels: string[];
}

/**
 * The series selectors of a PromQL expression, each with the metric it names and the labels it
 * matches on, read by Prometheus's own grammar (lezer-promql). A selector without a metric name
 * (`{__name__=~"..."}`) is refused: the checks need every metric named.
 */
export function selectorsOf(expr: string): Selector[] {
  const tree = parser.parse(expr);
  const selectors: Selector[] = [];
  let syntaxError: number | undefined;
  tree.iterate({
    enter: (node) => {
      if (node.type.isError) syntaxError ??= node.from;
      if (node.name !== "VectorSelector") return;
      const identifier = node.node.getChild("Identifier");
      if (!identifier) throw new Error(`a selector without a metric name in: ${expr}`);
      const labels = node.node
        .getChildren("LabelMatchers")
        .flatMap((matchers) => matchers.getChildren("UnquotedLabelMatcher"))
        .map((matcher) => expr.slice(matcher.getChild("LabelName")!.from, matcher.getChild("LabelName")!.to));
      selectors.push({ metric: expr.slice(identifier.from, identifier.to), labels });
    },
  });
  if (syntaxError !== undefined) throw new Error(`not PromQL at offset ${syntaxError}: ${expr}`);
  return selectors;
}

/** The metric of a promtool input series such as `name{label="value"}`. */
export function seriesMetric(series: string): string {
  return selectorsOf(series)[0].metric;
}
