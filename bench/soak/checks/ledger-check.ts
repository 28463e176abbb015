import type { Pool } from "pg";

import type { Expectation } from "../action-planner";
import type { LoadRecord } from "../load-record";
import { type CheckLine, countsOf, firstFew, info, verdict } from "./check-line";
import type { RestoreLosses } from "./restore-losses";

interface LedgerRow {
  id: string;
  kind: string;
  status: string;
  error_code: string | null;
}

const FINAL = new Set(["confirmed", "error", "no_broadcast_required"]);

/** A fault run's fault, from its start until it was over. */
export interface FaultWindow {
  startedAt: number;
  endedAt: number;
}

/** How long after a fault's end a request may still go unanswered because of it (reconnections). */
const UNANSWERED_GRACE_MS = 10_000;

/** What the ledger must say of an action the service accepted, by what the load meant it to do. */
function endedAsExpected(row: LedgerRow, expect: Expectation): boolean {
  return row.status === expect;
}

/**
 * The run's own account against the ledger: every accepted promise is a row that ended as intended
 * (confirmed, or final with nothing on chain); nothing is left
 * unfinished; and rows no answer announced (requests cut off during a fault) are final too.
 */
export async function checkLedger(
  db: Pool,
  record: LoadRecord,
  /** A fault run's faults: a request open during one (or within UNANSWERED_GRACE_MS after its end) may go unanswered; null in a soak. */
  faults: FaultWindow[] | null,
  /** A fault run's restores: the actions accepted between a dump and its restore are gone from the ledger by design. */
  losses?: RestoreLosses,
): Promise<{ lines: CheckLine[]; byKind: Record<string, Record<string, number>> }> {
  const rows = (await db.query<LedgerRow>(`SELECT id, kind, status, error_code FROM chain_actions`)).rows;
  const byId = new Map(rows.map((row) => [row.id, row]));
  const missing = [...record.accepted.keys()].filter((promise) => !byId.has(promise) && !losses?.lost.has(promise));
  const lostCount = losses?.lost.size ?? 0;
  const unexpected: string[] = [];
  for (const [promise, accepted] of record.accepted) {
    const row = byId.get(promise);
    if (row && !endedAsExpected(row, accepted.expect))
      unexpected.push(`${accepted.kind} ${promise}: ${row.status}${row.error_code ? ` (${row.error_code})` : ""}, expected ${accepted.expect}`);
  }
  const unfinished = rows.filter((row) => !FINAL.has(row.status));
  const unannounced = rows.filter((row) => !record.accepted.has(row.id));
  const unannouncedErrors = unannounced.filter((row) => row.status === "error");
  // A request explains its failure by a fault when it was open at some moment from the fault's start to shortly after its end.
  const unexplained = record.unanswered.filter(
    (item) => !(faults ?? []).some((fault) => item.sentAt <= fault.endedAt + UNANSWERED_GRACE_MS && item.at >= fault.startedAt),
  );
  const lines = [
    verdict(
      missing.length === 0,
      "every accepted action is in the ledger",
      `${record.accepted.size - missing.length - lostCount} of ${record.accepted.size - lostCount}` +
        (lostCount ? ` (and ${lostCount} accepted between a dump and its restore, gone by design)` : "") +
        (missing.length ? `; missing: ${firstFew(missing)}` : ""),
    ),
    verdict(
      unexpected.length === 0,
      "every accepted action ended as intended",
      `${record.accepted.size - unexpected.length - missing.length - lostCount} as intended` +
        (unexpected.length ? `; not as intended: ${firstFew(unexpected)}` : ""),
    ),
    verdict(unfinished.length === 0, "nothing left unfinished in the ledger", `${unfinished.length} actions waiting or pending`),
    verdict(
      record.refused.length === 0,
      "the service refused no action of the load",
      (record.refused.length ? countsOf(record.refused.map((item) => `${item.kind} ${item.code}`)) : "0 refused") +
        `; ${record.intendedRefusals} claims to a custody address refused on purpose (invalid_field)`,
    ),
    verdict(
      unexplained.length === 0,
      faults ? "requests without an answer only while a fault was on" : "every request was answered",
      record.unanswered.length
        ? `${record.unanswered.length} actions: ${countsOf(record.unanswered.map((item) => item.reason))}` +
            (faults ? `; sent and failed away from any fault (more than ${UNANSWERED_GRACE_MS / 1000} s after its end): ${unexplained.length}` : "")
        : "0 unanswered",
    ),
    unannounced.length === 0
      ? info("actions applied without an answer", "0")
      : verdict(
          unannouncedErrors.length === 0 && unannounced.every((row) => FINAL.has(row.status)),
          "actions applied without an answer (the client cannot know them; they must still be final)",
          `${unannounced.length}: ${countsOf(unannounced.map((row) => `${row.kind} ${row.status}`))}`,
        ),
  ];
  return { lines, byKind: tabulate(rows) };
}

function tabulate(rows: LedgerRow[]): Record<string, Record<string, number>> {
  const table: Record<string, Record<string, number>> = {};
  for (const row of rows) {
    const status = row.status === "error" ? `error ${row.error_code}` : row.status;
    table[row.kind] ??= {};
    table[row.kind][status] = (table[row.kind][status] ?? 0) + 1;
  }
  return table;
}
