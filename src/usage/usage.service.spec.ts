import { describe, expect, it } from "vitest";

import { loadConfig } from "../config/app-config";
import { ApiError } from "../common/errors/api-error";
import { UsageService } from "./usage.service";
import type { UsageRange, UsageStore, UsageSum } from "./usage.store";

const zero = { accepted: 0, confirmed: 0, failed: 0, transactions: 0, gas: 0n, feeWei: 0n };

/** A store that answers one organization's total and remembers what it was asked. */
function storeAnswering(total: UsageSum) {
  const asked: { organizationId: string | null; range: UsageRange }[] = [];
  const store = {
    organizationSums: async (organizationId: string, range: UsageRange) => (asked.push({ organizationId, range }), [total]),
    allSums: async (range: UsageRange) => (asked.push({ organizationId: null, range }), [total, { ...total, level: "all" as const }]),
    organizations: async () => [
      { id: "o1", ticketeerId: "alpha" },
      { id: "o2", ticketeerId: "beta" },
    ],
  } as unknown as UsageStore;
  return { store, asked };
}

describe("UsageService", () => {
  const total: UsageSum = { ...zero, level: "organization", organizationId: "o1", ticketeerId: "alpha", group: null, kind: null, gas: 21_000n, feeWei: 42n };

  it("checks the range against USAGE_MAX_RANGE_DAYS", () => {
    const sut = new UsageService(storeAnswering(total).store, loadConfig({ USAGE_MAX_RANGE_DAYS: "7" }));
    expect(sut.query({ from: "2026-03-01", to: "2026-03-07" }).to.toISOString()).toBe("2026-03-08T00:00:00.000Z");
    expect(() => sut.query({ from: "2026-03-01", to: "2026-03-08" })).toThrow(ApiError);
  });

  it("reads the statement of the key's organization only", async () => {
    const { store, asked } = storeAnswering(total);
    const sut = new UsageService(store, loadConfig({}));
    const query = sut.query({ from: "2026-03-01", to: "2026-03-01", groupBy: "event" });
    const statement = await sut.statement({ id: "o1", ticketeerId: "alpha" }, query);
    expect(asked).toEqual([{ organizationId: "o1", range: query }]);
    expect(statement).toMatchObject({ ticketeerId: "alpha", groupBy: "event", totals: { gas: "21000", feeWei: "42" } });
  });

  it("reports every organization, one with nothing in the range included", async () => {
    const sut = new UsageService(storeAnswering(total).store, loadConfig({}));
    const report = await sut.report(sut.query({ from: "2026-03-01", to: "2026-03-01" }));
    expect(report.organizations.map((statement) => [statement.ticketeerId, statement.totals.gas])).toEqual([
      ["alpha", "21000"],
      ["beta", "0"],
    ]);
    expect(report.totals.gas).toBe("21000");
  });
});
