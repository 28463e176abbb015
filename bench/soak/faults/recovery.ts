import type { Pool } from "pg";

import type { LoadRecord } from "../load-record";
import type { FaultRecord } from "./fault-schedule";

export interface Recovery {
  fault: string;
  "at s": string;
  "lasted s": string;
  "actions unfinished at its end": number;
  "first broadcast after s": string;
  "first confirmation after s": string;
  "first callback after s": string;
  "work accepted before its end all final after s": string;
  "actions unanswered": number;
  note: string;
}

/**
 * How fast the pipeline came back after each fault, from the ledger's own timestamps, measured from
 * the fault's end: the first transaction broadcast, the first action confirmed and the first
 * callback delivered after it, and when every action accepted before the end was final. Actions whose
 * request got no answer are counted from the fault's start until 5 s after its end.
 */
export async function recoveryOf(db: Pool, faults: FaultRecord[], record: LoadRecord): Promise<Recovery[]> {
  const rows: Recovery[] = [];
  for (const fault of faults) {
    const end = new Date(fault.endedAt);
    const { rows: found } = await db.query<{
      unfinished: number;
      broadcast: Date | null;
      confirmed: Date | null;
      delivered: Date | null;
      settled: Date | null;
    }>(
      // Every action is final by now, so updated_at is when it became final.
      `SELECT (SELECT count(*) FROM chain_actions WHERE created_at < $1 AND updated_at >= $1 AND status <> 'no_broadcast_required')::int AS unfinished,
              (SELECT min(broadcast_at) FROM chain_transactions WHERE broadcast_at >= $1) AS broadcast,
              (SELECT min(updated_at) FROM chain_actions WHERE status = 'confirmed' AND updated_at >= $1) AS confirmed,
              (SELECT min(delivered_at) FROM callbacks WHERE delivered_at >= $1) AS delivered,
              (SELECT max(updated_at) FROM chain_actions WHERE created_at < $1) AS settled`,
      [end],
    );
    const after = (date: Date | null) => (date ? Math.max(0, (date.getTime() - fault.endedAt) / 1000).toFixed(1) : "never");
    rows.push({
      fault: fault.kind,
      "at s": ((fault.startedAt - record.startedAt) / 1000).toFixed(0),
      "lasted s": ((fault.endedAt - fault.startedAt) / 1000).toFixed(1),
      "actions unfinished at its end": found[0].unfinished,
      "first broadcast after s": after(found[0].broadcast),
      "first confirmation after s": after(found[0].confirmed),
      "first callback after s": after(found[0].delivered),
      "work accepted before its end all final after s": after(found[0].settled),
      "actions unanswered": record.unanswered.filter((item) => item.at >= fault.startedAt && item.at <= fault.endedAt + 5_000).length,
      note: fault.note ?? "",
    });
  }
  return rows;
}
