import { Injectable } from "@nestjs/common";
import { InjectDataSource } from "@nestjs/typeorm";
import type { Gauge } from "prom-client";
import { DataSource } from "typeorm";

import { ScrapeRead } from "./scrape-read";

export interface LedgerBacklogSnapshot {
  waitingBroadcast: number;
  waitingFunds: number;
  pending: number;
  oldestWaitingSeconds: number;
  callbacksDue: number;
  callbacksScheduled: number;
}

/**
 * Only what is not final is counted, each from an index that holds just those rows, so a scrape
 * costs in proportion to the backlog, never to the ledger's history. Pending actions are counted
 * from their open transactions (one attempt per nonce).
 */
const BACKLOG_SQL = `
  SELECT
    (SELECT count(*) FROM chain_actions WHERE status = 'waiting_broadcast') AS waiting_broadcast,
    (SELECT count(*) FROM chain_actions WHERE status = 'waiting_funds') AS waiting_funds,
    (SELECT COALESCE(sum(item_count), 0) FROM (
       SELECT DISTINCT ON (signer, nonce) item_count FROM chain_transactions
        WHERE status IN ('signed', 'broadcast', 'mined') ORDER BY signer, nonce, attempt DESC) open) AS pending,
    (SELECT COALESCE(extract(epoch FROM now() - created_at), 0) FROM chain_actions
      WHERE status = 'waiting_broadcast' ORDER BY seq LIMIT 1) AS oldest_waiting_seconds,
    (SELECT count(*) FROM callbacks WHERE status = 'pending' AND next_attempt_at <= now()) AS callbacks_due,
    (SELECT count(*) FROM callbacks WHERE status = 'pending' AND next_attempt_at > now()) AS callbacks_scheduled`;

const READ_TIMEOUT_MS = 3_000;

/** The ledger's and the outbox's backlog, read once per scrape. */
@Injectable()
export class LedgerBacklog {
  private readonly snapshot: ScrapeRead<LedgerBacklogSnapshot>;

  constructor(@InjectDataSource() dataSource: DataSource) {
    this.snapshot = new ScrapeRead("the ledger backlog", () => readBacklog(dataSource), READ_TIMEOUT_MS);
  }

  read(): Promise<LedgerBacklogSnapshot | null> {
    return this.snapshot.get();
  }
}

async function readBacklog(dataSource: DataSource): Promise<LedgerBacklogSnapshot> {
  const [row] = await dataSource.query<Record<string, string | number | null>[]>(BACKLOG_SQL);
  return {
    waitingBroadcast: Number(row.waiting_broadcast),
    waitingFunds: Number(row.waiting_funds),
    pending: Number(row.pending),
    oldestWaitingSeconds: Number(row.oldest_waiting_seconds ?? 0),
    callbacksDue: Number(row.callbacks_due),
    callbacksScheduled: Number(row.callbacks_scheduled),
  };
}

export function fillLedgerActions(gauge: Gauge, snapshot: LedgerBacklogSnapshot): void {
  gauge.set({ status: "waiting_broadcast" }, snapshot.waitingBroadcast);
  gauge.set({ status: "waiting_funds" }, snapshot.waitingFunds);
  gauge.set({ status: "pending" }, snapshot.pending);
}

export function fillOldestWaiting(gauge: Gauge, snapshot: LedgerBacklogSnapshot): void {
  gauge.set(snapshot.oldestWaitingSeconds);
}

export function fillOutboxCallbacks(gauge: Gauge, snapshot: LedgerBacklogSnapshot): void {
  gauge.set({ state: "due" }, snapshot.callbacksDue);
  gauge.set({ state: "scheduled" }, snapshot.callbacksScheduled);
}
