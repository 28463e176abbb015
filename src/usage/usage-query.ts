import { ApiError } from "../common/errors/api-error";
import { invalidField } from "../common/errors/error-detail";

/** How a statement's lines are grouped: by UTC day, or by event. */
export const USAGE_GROUPINGS = ["day", "event"] as const;
export type UsageGrouping = (typeof USAGE_GROUPINGS)[number];

const DAY_MS = 86_400_000;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME = /^(\d{4}-\d{2}-\d{2})T([01]\d|2[0-3]):[0-5]\d(:[0-5]\d(\.\d{1,9})?)?(Z|[+-]([01]\d|2[0-3]):[0-5]\d)$/;

/**
 * A statement's range and grouping, checked: `from` inclusive, `to` exclusive, both instants. A
 * date alone (`2026-03-01`) means that UTC day: its start as `from`, its end (the next day's start)
 * as `to`, so `from=2026-03-01&to=2026-03-31` is the whole of March. A date-time with its offset is
 * that instant. A 400 invalid_field names the parameter at fault.
 */
export class UsageQuery {
  private constructor(
    readonly from: Date,
    readonly to: Date,
    readonly groupBy: UsageGrouping,
  ) {}

  static parse(raw: { from?: unknown; to?: unknown; groupBy?: unknown }, maxRangeDays: number): UsageQuery {
    const from = parseInstant(raw.from, "from", "start");
    const to = parseInstant(raw.to, "to", "end");
    if (from.getTime() >= to.getTime()) throw refused("from", "must be before to (to's day is included when to is a date)");
    if (to.getTime() - from.getTime() > maxRangeDays * DAY_MS)
      throw refused("to", `must be at most ${maxRangeDays} days after from (USAGE_MAX_RANGE_DAYS): ask for a longer range in parts`);
    return new UsageQuery(from, to, parseGrouping(raw.groupBy));
  }
}

function refused(field: string, message: string): ApiError {
  return new ApiError(400, invalidField(field, message));
}

/** An ISO 8601 date or date-time; a date stands for its day's start (`start`) or its end (`end`). */
function parseInstant(value: unknown, field: string, edge: "start" | "end"): Date {
  if (value === undefined || value === "") throw refused(field, "is required: an ISO 8601 date (2026-03-01) or date-time with offset (2026-03-01T12:00:00Z)");
  if (typeof value !== "string") throw refused(field, "must be given once");
  const day = DATE.exec(value);
  if (day) {
    const start = calendarDay(value);
    if (start === null) throw refused(field, `is not a date of the calendar: ${value}`);
    return new Date(start + (edge === "end" ? DAY_MS : 0));
  }
  const dateTime = DATE_TIME.exec(value);
  if (!dateTime) throw refused(field, "must be an ISO 8601 date (2026-03-01) or date-time with offset (2026-03-01T12:00:00Z)");
  if (calendarDay(dateTime[1]) === null) throw refused(field, `is not a date of the calendar: ${dateTime[1]}`);
  return new Date(Date.parse(value));
}

/** The UTC start of a YYYY-MM-DD day in ms, or null for a day the calendar does not have (2026-02-30). */
function calendarDay(date: string): number | null {
  const [, year, month, day] = DATE.exec(date)!;
  const start = Date.UTC(Number(year), Number(month) - 1, Number(day));
  return Number(year) >= 1970 && new Date(start).toISOString().slice(0, 10) === date ? start : null;
}

function parseGrouping(value: unknown): UsageGrouping {
  if (value === undefined) return "day";
  if (typeof value === "string" && (USAGE_GROUPINGS as readonly string[]).includes(value)) return value as UsageGrouping;
  throw refused("groupBy", `must be one of ${USAGE_GROUPINGS.join(", ")}`);
}
