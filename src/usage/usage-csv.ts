import type { UsageCountsDto, UsageStatementDto } from "./dto/usage-statement.dto";
import type { UsageReport } from "./usage-statement";

/** The kind column of a row that sums a group (or, with no group, the whole range). */
export const TOTAL_KIND = "total";

const COUNT_COLUMNS = ["accepted", "confirmed", "failed", "transactions", "gas", "feeWei"] as const;

/**
 * A statement as CSV (RFC 4180, CRLF line ends, a header row): one row per group and kind, then the
 * group's row of kind `total`; last, the range's `total` row with the group column empty.
 */
export function statementCsv(statement: UsageStatementDto): string {
  return csv([groupColumn(statement), "kind", ...COUNT_COLUMNS], statementRows(statement));
}

/** Every organization's statement as one CSV, a ticketeerId column first; last, the sum over all of them (ticketeerId empty). */
export function reportCsv(report: UsageReport): string {
  const rows = report.organizations.flatMap((statement) => statementRows(statement).map((row) => [statement.ticketeerId, ...row]));
  return csv(
    ["ticketeerId", report.groupBy === "day" ? "day" : "eventId", "kind", ...COUNT_COLUMNS],
    [...rows, ["", "", TOTAL_KIND, ...counts(report.totals)]],
  );
}

function groupColumn(statement: UsageStatementDto): string {
  return statement.groupBy === "day" ? "day" : "eventId";
}

function statementRows(statement: UsageStatementDto): string[][] {
  const rows = statement.groups.flatMap((group) => {
    const key = group.day ?? group.eventId ?? "";
    return [...group.actions.map((line) => [key, line.kind, ...counts(line)]), [key, TOTAL_KIND, ...counts(group.totals)]];
  });
  return [...rows, ["", TOTAL_KIND, ...counts(statement.totals)]];
}

function counts(values: UsageCountsDto): string[] {
  return COUNT_COLUMNS.map((column) => String(values[column]));
}

function csv(header: readonly string[], rows: readonly (readonly string[])[]): string {
  return [header, ...rows].map((row) => row.map(cell).join(",")).join("\r\n") + "\r\n";
}

/**
 * A cell as RFC 4180 writes it; an id a spreadsheet would take for a formula (leading =, +, -, @, tab
 * or CR) gets a leading apostrophe, so that opening an export never runs what an id holds.
 */
function cell(value: string): string {
  const safe = /^[=+\-@\t\r]/.test(value) && !/^-?\d+$/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(safe) || safe !== value ? `"${safe.replace(/"/g, '""')}"` : safe;
}
