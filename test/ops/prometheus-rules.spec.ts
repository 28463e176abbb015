import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";

import { afterAll, describe, expect, it } from "vitest";

import { ALERT_TESTS_FILE, ALERTS_FILE, alertRules, alertTests, dashboardQueries, selectorsOf, withGrafanaVariables } from "./observability-files";
import { promtool } from "./promtool";

describe("ops/prometheus/alerts.yml", () => {
  const scratch = mkdtempSync(join(tmpdir(), "alert-rules-"));
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  it("passes promtool check rules", async () => {
    const run = await promtool(["check", "rules", ALERTS_FILE]);
    expect(run.output).toContain("SUCCESS");
    expect(run.code, run.output).toBe(0);
  });

  it("passes its unit tests (promtool test rules alerts.test.yml)", async () => {
    const run = await promtool(["test", "rules", ALERT_TESTS_FILE], dirname(ALERT_TESTS_FILE));
    expect(run.code, run.output).toBe(0);
    expect(run.output).toContain("SUCCESS");
  });

  it("has unit tests that can fail: an expectation the rules do not meet is reported", async () => {
    const wrong = join(scratch, "wrong.test.yml");
    writeFileSync(
      wrong,
      JSON.stringify({
        rule_files: [ALERTS_FILE],
        tests: [
          {
            interval: "1m",
            input_series: [{ series: "ticket_registry_chain_ledger_registry_mismatch", values: "0x10" }],
            alert_rule_test: [{ eval_time: "10m", alertname: "TicketRegistryLedgerRegistryMismatch", exp_alerts: [{ exp_labels: { severity: "critical" } }] }],
          },
        ],
      }),
    );
    const run = await promtool(["test", "rules", wrong]);
    expect(run.code).not.toBe(0);
    expect(run.output).toContain("FAILED");
  });

  it("shows every alert both firing and silent in the unit tests", () => {
    const expectations = alertTests().flatMap((test) => test.alert_rule_test ?? []);
    for (const { alert } of alertRules()) {
      const own = expectations.filter((expectation) => expectation.alertname === alert);
      expect(
        own.some((expectation) => expectation.exp_alerts.length > 0),
        `${alert} is never shown firing`,
      ).toBe(true);
      expect(
        own.some((expectation) => expectation.exp_alerts.length === 0),
        `${alert} is never shown silent`,
      ).toBe(true);
    }
  });

  it("alerts on what the operators' guide names, and on API errors and latency, ledger lag, callback failures and signer funds", () => {
    const watched = new Set(alertRules().flatMap((rule) => selectorsOf(rule.expr).map((selector) => selector.metric)));
    const named = [
      "chain_rpc_up",
      "chain_signer_stuck",
      "chain_signer_stopped",
      "chain_ledger_registry_mismatch",
      "chain_transfer_follower_behind_blocks",
      "signer_balance_wei",
      "signer_funds_needed_wei",
      "chain_signer_waiting_funds",
      "ledger_oldest_waiting_seconds",
      "http_request_duration_seconds_count",
      "http_request_duration_seconds_bucket",
      "callback_attempts_total",
    ].map((name) => `ticket_registry_${name}`);
    expect(named.filter((name) => !watched.has(name))).toEqual([]);
  });

  it("gives every alert a severity, a summary and a description", () => {
    for (const rule of alertRules()) {
      expect(["critical", "warning"], rule.alert).toContain(rule.labels?.severity);
      expect(rule.annotations?.summary, rule.alert).toBeTruthy();
      expect(rule.annotations?.description, rule.alert).toBeTruthy();
    }
  });
});

describe("the Grafana dashboard's queries", () => {
  const scratch = mkdtempSync(join(tmpdir(), "dashboard-queries-"));
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  it("are PromQL that Prometheus accepts (promtool checks them as recording rules)", async () => {
    const queries = dashboardQueries();
    const rules = queries.map(({ expr }, index) => ({ record: `dashboard:query_${index}`, expr: withGrafanaVariables(expr) }));
    const file = join(scratch, "dashboard.rules.yml");
    writeFileSync(file, JSON.stringify({ groups: [{ name: "dashboard", rules }] }));
    const run = await promtool(["check", "rules", file]);
    expect(run.code, run.output).toBe(0);
    expect(run.output).toContain(`SUCCESS: ${queries.length} rules found`);
  });
});

describe("selectorsOf (PromQL read by Prometheus's grammar)", () => {
  it("names the metric and the matched labels of every selector", () => {
    expect(selectorsOf('sum by (le) (rate(a_bucket{route!="/x", le="1"}[5m])) / on() max(b) unless c offset 5m')).toEqual([
      { metric: "a_bucket", labels: ["route", "le"] },
      { metric: "b", labels: [] },
      { metric: "c", labels: [] },
    ]);
  });

  it("refuses what is not PromQL and selectors without a metric name", () => {
    expect(() => selectorsOf("sum(rate(a[5m])")).toThrow(/not PromQL/);
    expect(() => selectorsOf('{__name__="a"}')).toThrow(/without a metric name/);
  });
});
