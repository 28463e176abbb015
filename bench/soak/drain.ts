import type { Pool } from "pg";

import type { CallbackTally } from "./callback-tally";

export interface Backlog {
  unfinishedActions: number;
  pendingCallbacks: number;
  deliveredCallbacks: number;
  receivedCallbacks: number;
}

const POLL_MS = 1_000;
const PROGRESS_EVERY_MS = 10_000;

/**
 * Waits until the ledger has no action waiting or pending, the outbox no pending callback, and the
 * receiver has seen every delivered one. Answers the time it took, or the backlog left at the deadline
 * (or when `givenUp` says nothing will drain it: a service is down for good).
 */
export async function waitForDrain(
  db: Pool,
  tally: CallbackTally,
  timeoutMs: number,
  givenUp: () => boolean,
): Promise<{ drained: boolean; seconds: number; backlog: Backlog }> {
  const started = Date.now();
  let lastProgress = started;
  for (;;) {
    const backlog = await backlogOf(db, tally);
    const seconds = (Date.now() - started) / 1000;
    if (backlog.unfinishedActions === 0 && backlog.pendingCallbacks === 0 && backlog.receivedCallbacks >= backlog.deliveredCallbacks)
      return { drained: true, seconds, backlog };
    if (Date.now() - started > timeoutMs || givenUp()) return { drained: false, seconds, backlog };
    if (Date.now() - lastProgress >= PROGRESS_EVERY_MS) {
      lastProgress = Date.now();
      console.log(`  draining (${seconds.toFixed(0)} s): ${backlog.unfinishedActions} actions unfinished, ${backlog.pendingCallbacks} callbacks pending`);
    }
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

export async function backlogOf(db: Pool, tally: CallbackTally): Promise<Backlog> {
  const { rows } = await db.query<{ unfinished: number; pending: number; delivered: number }>(
    `SELECT (SELECT count(*) FROM chain_actions WHERE status IN ('waiting_broadcast', 'pending'))::int AS unfinished,
            (SELECT count(*) FROM callbacks WHERE status = 'pending')::int AS pending,
            (SELECT count(*) FROM callbacks WHERE status = 'delivered')::int AS delivered`,
  );
  return {
    unfinishedActions: rows[0].unfinished,
    pendingCallbacks: rows[0].pending,
    deliveredCallbacks: rows[0].delivered,
    receivedCallbacks: tally.byWebhookId.size,
  };
}
