import { ApiError } from "../common/errors/api-error";
import { reportCsv, TOTAL_KIND } from "../usage/usage-csv";
import type { UsageReport } from "../usage/usage-statement";
import { RefusedError } from "./cli-errors";
import type { Command } from "./command";
import { print, printJson, printRaw, printTable } from "./output";

/** The statement's query parameters by the CLI's option names, so that a refusal names the option given. */
const OPTION_OF: Record<string, string> = { from: "--from", to: "--to", groupBy: "--group-by" };

export const usageReport: Command = {
  name: "usage report",
  summary:
    "Every organization's usage and gas statement over a range, as GET /api/v1/usage answers each: per day (--group-by day, the default, " +
    "UTC) or event and per action kind, the actions accepted, confirmed and failed, the transactions, the gas attributed and the fee in wei; " +
    "then the sum over all organizations, whose gas and fee are the receipts'. --from and --to take ISO 8601 dates (to's day included) or " +
    "date-times; --csv prints CSV, --json the report as JSON.",
  operands: [],
  requiredOptions: ["from", "to"],
  optionalOptions: ["group-by", "csv", "json"],
  async run({ usage }, { required, optional, json, flags }) {
    const query = checked(() => usage.query({ from: required.from, to: required.to, groupBy: optional["group-by"] }));
    const report = await usage.report(query);
    if (json) return printJson(report);
    if (flags.csv) return printRaw(reportCsv(report));
    printSummary(report);
  },
};

function checked<T>(read: () => T): T {
  try {
    return read();
  } catch (error) {
    if (!(error instanceof ApiError) || error.detail.field === undefined) throw error;
    const { field, message } = error.detail;
    throw new RefusedError(`${OPTION_OF[field] ?? field}${message.slice(field.length)}`);
  }
}

function printSummary(report: UsageReport): void {
  print(`Usage from ${report.from} to ${report.to} (excluded), by ${report.groupBy === "day" ? "UTC day" : "event"}.`);
  const rows = report.organizations.flatMap((statement) => [
    ...statement.groups.flatMap((group) =>
      group.actions.map((line) => [statement.ticketeerId, group.day ?? group.eventId ?? "", line.kind, ...countCells(line)]),
    ),
    [statement.ticketeerId, "", TOTAL_KIND, ...countCells(statement.totals)],
  ]);
  printTable(
    ["TICKETEER ID", report.groupBy === "day" ? "DAY" : "EVENT", "KIND", "ACCEPTED", "CONFIRMED", "FAILED", "TXS", "GAS", "FEE (WEI)"],
    [...rows, ["all", "", TOTAL_KIND, ...countCells(report.totals)]],
  );
}

function countCells(counts: UsageReport["totals"]): string[] {
  return [counts.accepted, counts.confirmed, counts.failed, counts.transactions, counts.gas, counts.feeWei].map(String);
}
