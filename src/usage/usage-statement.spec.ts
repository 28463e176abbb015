import { describe, expect, it } from "vitest";

import { statementCsv, reportCsv } from "./usage-csv";
import { UsageQuery } from "./usage-query";
import { reportOf, statementOf } from "./usage-statement";
import type { UsageSum } from "./usage.store";

const counts = (accepted: number, gas: bigint) => ({ accepted, confirmed: accepted, failed: 0, transactions: 1, gas, feeWei: gas * 3n });
const sum = (
  level: UsageSum["level"],
  organizationId: string | null,
  group: string | null,
  kind: UsageSum["kind"],
  accepted: number,
  gas: bigint,
): UsageSum => ({
  level,
  organizationId,
  ticketeerId: organizationId && `t-${organizationId}`,
  group,
  kind,
  ...counts(accepted, gas),
});

const byDay = UsageQuery.parse({ from: "2026-03-01", to: "2026-03-02" }, 366);
const byEvent = UsageQuery.parse({ from: "2026-03-01", to: "2026-03-02", groupBy: "event" }, 366);

/** Sums of organization o1 as the store gives them, in no order. */
const sums = (groups: [string, string][]): UsageSum[] => [
  sum("organization", "o1", null, null, 6, 600n),
  sum("line", "o1", groups[1][0], "sold", 2, 200n),
  sum("group", "o1", groups[1][0], null, 2, 200n),
  sum("line", "o1", groups[0][0], "scanned", 1, 100n),
  sum("line", "o1", groups[0][0], "newEvent", 3, 300n),
  sum("group", "o1", groups[0][0], null, 4, 400n),
];

describe("statementOf", () => {
  it("puts the groups in order, each with its lines in the kinds' order and its totals; amounts as decimal strings", () => {
    const statement = statementOf(
      "t-o1",
      byDay,
      sums([
        ["2026-03-01", ""],
        ["2026-03-02", ""],
      ]),
    );
    expect(statement).toEqual({
      ticketeerId: "t-o1",
      from: "2026-03-01T00:00:00.000Z",
      to: "2026-03-03T00:00:00.000Z",
      groupBy: "day",
      groups: [
        {
          day: "2026-03-01",
          actions: [
            { kind: "newEvent", accepted: 3, confirmed: 3, failed: 0, transactions: 1, gas: "300", feeWei: "900" },
            { kind: "scanned", accepted: 1, confirmed: 1, failed: 0, transactions: 1, gas: "100", feeWei: "300" },
          ],
          totals: { accepted: 4, confirmed: 4, failed: 0, transactions: 1, gas: "400", feeWei: "1200" },
        },
        {
          day: "2026-03-02",
          actions: [{ kind: "sold", accepted: 2, confirmed: 2, failed: 0, transactions: 1, gas: "200", feeWei: "600" }],
          totals: expect.any(Object),
        },
      ],
      totals: { accepted: 6, confirmed: 6, failed: 0, transactions: 1, gas: "600", feeWei: "1800" },
    });
  });

  it("names events by eventId, and answers zeros and no groups when nothing happened", () => {
    expect(
      statementOf(
        "t-o1",
        byEvent,
        sums([
          ["ev-a", ""],
          ["ev-b", ""],
        ]),
      ).groups.map((group) => group.eventId),
    ).toEqual(["ev-a", "ev-b"]);
    expect(statementOf("t-o2", byDay, [])).toMatchObject({
      groups: [],
      totals: { accepted: 0, confirmed: 0, failed: 0, transactions: 0, gas: "0", feeWei: "0" },
    });
  });

  it("keeps wei beyond 2^53 exact", () => {
    const huge = 2n ** 70n + 1n;
    const statement = statementOf("t-o1", byDay, [{ ...sum("organization", "o1", null, null, 1, 1n), feeWei: huge }]);
    expect(statement.totals.feeWei).toBe("1180591620717411303425");
  });
});

describe("statementCsv and reportCsv", () => {
  it("write a row per group and kind, a total row per group and the range's total last", () => {
    expect(
      statementCsv(
        statementOf(
          "t-o1",
          byDay,
          sums([
            ["2026-03-01", ""],
            ["2026-03-02", ""],
          ]),
        ),
      ).split("\r\n"),
    ).toEqual([
      "day,kind,accepted,confirmed,failed,transactions,gas,feeWei",
      "2026-03-01,newEvent,3,3,0,1,300,900",
      "2026-03-01,scanned,1,1,0,1,100,300",
      "2026-03-01,total,4,4,0,1,400,1200",
      "2026-03-02,sold,2,2,0,1,200,600",
      "2026-03-02,total,2,2,0,1,200,600",
      ",total,6,6,0,1,600,1800",
      "",
    ]);
  });

  it("quote ids that hold commas or quotes, and keep a spreadsheet from taking an id for a formula", () => {
    const csv = statementCsv(
      statementOf(
        "t-o1",
        byEvent,
        sums([
          ['a,"b"', ""],
          ["=HYPERLINK(1)", ""],
        ]),
      ),
    );
    expect(csv).toContain(`\r\n"'=HYPERLINK(1)",sold,2,`);
    expect(csv).toContain('\r\n"a,""b""",newEvent,3,');
  });

  it("write every organization's rows under its ticketeerId, and the sum over all of them last", () => {
    const report = reportOf(
      [
        { id: "o1", ticketeerId: "t-o1" },
        { id: "o2", ticketeerId: "t-o2" },
      ],
      byDay,
      [
        ...sums([
          ["2026-03-01", ""],
          ["2026-03-02", ""],
        ]),
        sum("all", null, null, null, 6, 600n),
      ],
    );
    expect(report.organizations.map((statement) => [statement.ticketeerId, statement.totals.accepted])).toEqual([
      ["t-o1", 6],
      ["t-o2", 0],
    ]);
    const lines = reportCsv(report).split("\r\n");
    expect(lines[0]).toBe("ticketeerId,day,kind,accepted,confirmed,failed,transactions,gas,feeWei");
    expect(lines[1]).toBe("t-o1,2026-03-01,newEvent,3,3,0,1,300,900");
    expect(lines.slice(-3)).toEqual(["t-o2,,total,0,0,0,0,0,0", ",,total,6,6,0,1,600,1800", ""]);
  });
});
