import type { Pool } from "pg";

import type { CallbackTally, SeenCallback } from "../callback-tally";
import { type CheckLine, firstFew, info, verdict } from "./check-line";

interface OutboxRow {
  id: string;
  action_id: string;
  status: string;
  action_status: string;
  error_code: string | null;
}

/**
 * A moment the run killed the worker, or (with `until`) a while PostgreSQL was unreachable: a delivery
 * the worker made and could not record is sent again.
 */
export interface WorkerKill {
  at: number;
  until?: number;
}

/**
 * Callbacks end to end: every final action has its one outbox row, every row was delivered, and
 * the receiver saw each webhook-id — with a valid signature and a body that matches the ledger —
 * exactly once. With `kills` (a fault run) a second delivery is explained when the worker was
 * killed (or the database unreachable) between the first one and its redelivery; any other duplicate fails.
 */
export async function checkCallbacks(
  db: Pool,
  tally: CallbackTally,
  kills: WorkerKill[] | null,
  /**
   * A fault run's restores: a callback first delivered between a dump and its restore has no outbox row
   * any more (its action was lost, or finalized again after the restore under a new webhook-id).
   */
  restores: readonly { dumpStartedAt: number; restoredAt: number }[] = [],
): Promise<CheckLine[]> {
  const outbox = (
    await db.query<OutboxRow>(
      `SELECT c.id, c.action_id, c.status, a.status AS action_status, a.error_code FROM callbacks c JOIN chain_actions a ON a.id = c.action_id`,
    )
  ).rows;
  const withoutCallback = (
    await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM chain_actions a WHERE NOT EXISTS (SELECT 1 FROM callbacks c WHERE c.action_id = a.id)`)
  ).rows[0].n;
  const notDelivered = outbox.filter((row) => row.status !== "delivered");
  const unseen = outbox.filter((row) => !tally.byWebhookId.has(row.id));
  const known = new Set(outbox.map((row) => row.id));
  const forgotten = (seen: SeenCallback | undefined) =>
    seen !== undefined && restores.some((restore) => seen.receivedAt[0] >= restore.dumpStartedAt && seen.receivedAt[0] <= restore.restoredAt);
  const strangers = [...tally.byWebhookId.keys()].filter((webhookId) => !known.has(webhookId) && !forgotten(tally.byWebhookId.get(webhookId)));
  const forgottenCount = [...tally.byWebhookId.keys()].filter((webhookId) => !known.has(webhookId)).length - strangers.length;
  const mismatched = outbox.filter((row) => {
    const seen = tally.byWebhookId.get(row.id);
    return seen !== undefined && !bodyMatches(seen, row);
  });
  const duplicated = [...tally.byWebhookId.values()].filter((seen) => seen.receivedAt.length > 1);
  const explained = kills ? duplicated.filter((seen) => redeliveredAfterKill(seen, kills)) : [];
  const unexplained = duplicated.filter((seen) => !explained.includes(seen));
  return [
    verdict(withoutCallback === 0, "every final action has its callback in the outbox", `${outbox.length} callbacks; actions without one: ${withoutCallback}`),
    verdict(
      notDelivered.length === 0,
      "every callback delivered",
      `not delivered: ${notDelivered.length}${notDelivered.length ? ` (${firstFew(notDelivered.map((row) => `${row.id} ${row.status}`))})` : ""}`,
    ),
    verdict(
      unseen.length === 0 && strangers.length === 0,
      "the receiver got every callback (by webhook-id)",
      `${tally.byWebhookId.size} webhook-ids received, missing: ${unseen.length}, unknown to the outbox: ${strangers.length}` +
        (restores.length ? ` (and ${forgottenCount} delivered between a dump and its restore, whose outbox rows the restore took)` : ""),
    ),
    verdict(
      tally.rejected.length === 0,
      "every delivery carried a valid signature",
      `${tally.deliveries} deliveries, ${tally.rejected.length} refused by the verifier${tally.rejected.length ? ` (${firstFew(tally.rejected.map((item) => item.reason))})` : ""}`,
    ),
    verdict(
      mismatched.length === 0,
      "each callback names its action and the ledger's outcome",
      `differing: ${mismatched.length}${mismatched.length ? ` (${firstFew(mismatched.map((row) => row.id))})` : ""}`,
    ),
    kills
      ? verdict(
          unexplained.length === 0,
          "deliveries beyond the first (receivers drop them by webhook-id)",
          `${duplicated.length} webhook-ids delivered more than once: ${explained.length} redelivered because the worker was killed (or the database unreachable) after the receiver's 2xx and before recording it, ${unexplained.length} unexplained`,
        )
      : verdict(duplicated.length === 0, "every callback delivered exactly once", `${duplicated.length} webhook-ids delivered more than once`),
    info("deliveries at the receiver", `${tally.deliveries} deliveries of ${tally.byWebhookId.size} callbacks`),
  ];
}

/** The status a callback must carry: the action's, with a change that needed no chain reported as confirmed. */
function bodyMatches(seen: SeenCallback, row: OutboxRow): boolean {
  const status = row.action_status === "no_broadcast_required" ? "confirmed" : row.action_status;
  return seen.actionPromise === row.action_id && seen.status === status && seen.errorCode === row.error_code;
}

function redeliveredAfterKill(seen: SeenCallback, kills: WorkerKill[]): boolean {
  const [first, ...later] = seen.receivedAt;
  return later.every((again) => kills.some((kill) => (kill.until ?? kill.at) >= first && kill.at <= again));
}
