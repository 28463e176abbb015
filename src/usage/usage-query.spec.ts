import { describe, expect, it } from "vitest";

import { ApiError } from "../common/errors/api-error";
import { UsageQuery } from "./usage-query";

const parse = (raw: Record<string, unknown>, maxRangeDays = 366) => UsageQuery.parse(raw, maxRangeDays);

/** The error detail a parse answers with. */
function refusal(raw: Record<string, unknown>, maxRangeDays = 366): { status: number; field?: string; code: string; message: string } {
  try {
    parse(raw, maxRangeDays);
  } catch (error) {
    if (error instanceof ApiError) return { status: error.status, ...error.detail };
    throw error;
  }
  throw new Error("the query was accepted");
}

describe("UsageQuery.parse", () => {
  it("takes dates as whole UTC days: from's start up to the end of to's day", () => {
    const sut = parse({ from: "2026-03-01", to: "2026-03-31" });
    expect([sut.from.toISOString(), sut.to.toISOString(), sut.groupBy]).toEqual(["2026-03-01T00:00:00.000Z", "2026-04-01T00:00:00.000Z", "day"]);
    expect(parse({ from: "2026-03-01", to: "2026-03-01" }).to.toISOString()).toBe("2026-03-02T00:00:00.000Z");
  });

  it("takes date-times with their offset as instants, to excluded", () => {
    const sut = parse({ from: "2026-03-01T10:00:00+02:00", to: "2026-03-01T12:30Z", groupBy: "event" });
    expect([sut.from.toISOString(), sut.to.toISOString(), sut.groupBy]).toEqual(["2026-03-01T08:00:00.000Z", "2026-03-01T12:30:00.000Z", "event"]);
  });

  it("refuses a missing, repeated or malformed date, naming the parameter", () => {
    expect(refusal({ to: "2026-03-01" })).toMatchObject({
      status: 400,
      code: "invalid_field",
      field: "from",
      message: expect.stringMatching(/^from is required/),
    });
    expect(refusal({ from: "2026-03-01", to: "" })).toMatchObject({ field: "to", message: expect.stringMatching(/^to is required/) });
    expect(refusal({ from: ["2026-03-01", "2026-03-02"], to: "2026-03-03" })).toMatchObject({ field: "from", message: "from must be given once" });
    for (const from of ["yesterday", "2026-3-1", "2026-03-01T10:00:00", "2026-03-01 10:00Z", "1772366400", "2026-03-01T24:00Z"]) {
      expect(refusal({ from, to: "2026-03-31" })).toMatchObject({ field: "from", message: expect.stringMatching(/must be an ISO 8601 date/) });
    }
    expect(refusal({ from: "2026-01-01", to: "2026-02-30" })).toMatchObject({ field: "to", message: "to is not a date of the calendar: 2026-02-30" });
    expect(refusal({ from: "2026-02-29T10:00Z", to: "2026-03-30" })).toMatchObject({
      field: "from",
      message: "from is not a date of the calendar: 2026-02-29",
    });
  });

  it("refuses from after to, naming from", () => {
    expect(refusal({ from: "2026-03-02", to: "2026-03-01" })).toMatchObject({
      status: 400,
      field: "from",
      message: expect.stringMatching(/^from must be before to/),
    });
    expect(refusal({ from: "2026-03-01T12:00Z", to: "2026-03-01T12:00Z" })).toMatchObject({ field: "from" });
  });

  it("refuses a range longer than the cap, naming to", () => {
    expect(parse({ from: "2025-01-01", to: "2025-12-31" }, 365).to.toISOString()).toBe("2026-01-01T00:00:00.000Z");
    expect(refusal({ from: "2024-01-01", to: "2024-12-31" }, 365)).toMatchObject({
      status: 400,
      field: "to",
      message: "to must be at most 365 days after from (USAGE_MAX_RANGE_DAYS): ask for a longer range in parts",
    });
  });

  it("refuses an unknown groupBy, naming it", () => {
    expect(refusal({ from: "2026-03-01", to: "2026-03-01", groupBy: "week" })).toMatchObject({
      status: 400,
      field: "groupBy",
      message: "groupBy must be one of day, event",
    });
  });
});
