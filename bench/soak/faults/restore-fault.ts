import { execFile } from "node:child_process";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";

import type { Stack } from "../../stack/stack";

const run = promisify(execFile);

/** What `ledger reconcile` reported (its JSON report), as far as the checks read it. */
export interface ReconcileReport {
  lostEvents: { eventKey: string; eventIndex: string; blockNumber: number; txHash: string }[];
  lostTickets: { eventKey: string | null; tokenId: string; ticketHash: string; blockNumber: number; txHash: string }[];
  lostActions: { action: string; subject: string; txHash: string; failure: string | null }[];
  changes: { appliedActions: string[] };
}

/** One restore: the dump's moment, the restore's, and the reconcile's report. */
export interface RestoreRecord {
  dumpStartedAt: number;
  /** When the restored database was reconciled: the services start again after it. */
  restoredAt: number;
  reportFile: string;
  report: ReconcileReport;
}

/**
 * Dumps the run's database under load (pg_dump, custom format), lets the load go on for `goOnMs`,
 * stops the api and the workers, restores the dump (pg_restore --clean), runs
 * `npm run cli -- ledger reconcile` with the services' configuration, then starts the services again.
 * `restored` runs between the reconcile and the restart (the load generator forgets what the ledger lost).
 */
export async function restoreFromDump(
  stack: Stack,
  logDir: string,
  index: number,
  goOnMs: number,
  restored: (restore: Omit<RestoreRecord, "report" | "reportFile">) => Promise<void>,
): Promise<{ record: RestoreRecord; note: string }> {
  const url = stack.database.url;
  const dumpFile = join(logDir, `restore-${index}.dump`);
  const reportFile = join(logDir, `ledger-reconcile-${index}.json`);
  const dumpStartedAt = Date.now();
  await run("pg_dump", ["--format=custom", "--file", dumpFile, url]);
  await new Promise((resolve) => setTimeout(resolve, goOnMs));
  const stoppedAt = Date.now();
  await stack.services.stopServices();
  await run("pg_restore", ["--clean", "--if-exists", "--no-owner", "--dbname", url, dumpFile]);
  const { stdout } = await run("npm", ["run", "--silent", "cli", "--", "ledger", "reconcile", "--report", reportFile], {
    env: { ...process.env, ...stack.services.environment },
    timeout: 300_000,
  });
  // The summary; the lost events and tickets one by one are in the report.
  for (const line of stdout.trim().split("\n")) if (!line.startsWith("  ")) console.log(`    reconcile: ${line}`);
  const restoredAt = Date.now();
  await restored({ dumpStartedAt, restoredAt });
  await stack.services.start();
  const report = JSON.parse(await readFile(reportFile, "utf8")) as ReconcileReport;
  return {
    record: { dumpStartedAt, restoredAt, reportFile, report },
    note:
      `dumped, ${((stoppedAt - dumpStartedAt) / 1000).toFixed(0)} s more load, services down ${((Date.now() - stoppedAt) / 1000).toFixed(0)} s; ` +
      `reconcile: ${report.lostEvents.length} events and ${report.lostTickets.length} tickets on chain unknown to the ledger, ` +
      `${report.changes.appliedActions.length} waiting actions closed as already on chain (report ${reportFile})`,
  };
}
