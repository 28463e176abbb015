import type { Pool } from "pg";

import { ticketHashOf } from "../../../src/registry/registry-ids";
import type { RestoreRecord } from "../faults/restore-fault";
import type { AcceptedAction, LoadRecord } from "../load-record";
import { type CheckLine, firstFew, info, verdict } from "./check-line";

/**
 * What the run's restores took from the ledger by design: the actions accepted between a dump and
 * its restore (gone from the restored ledger), the tickets and events they acted on (their ledger
 * state may lag the chain's: they are left out of the per-ticket and per-event comparisons), and what
 * `ledger reconcile` reported of them on chain.
 */
export interface RestoreLosses {
  lost: Map<string, AcceptedAction>;
  tickets: Set<string>;
  events: Set<string>;
  /** The reports' tokens and event indexes on chain unknown to the ledger. */
  reportedTokens: Set<string>;
  reportedEventIndexes: Set<string>;
  /** Reported tokens per event index: what the registry's ticketsSold counts beyond the ledger. */
  reportedTicketsByEvent: Map<string, number>;
  /** Items of the lost part's batches the registry refused: ItemFailed logs no ledger action stands for. */
  reportedFailures: number;
  restores: RestoreRecord[];
}

/** The losses of `restores`, from the run's own record and the ledger as it ends. */
export async function restoreLosses(db: Pool, record: LoadRecord, restores: RestoreRecord[]): Promise<RestoreLosses> {
  const inLedger = new Set((await db.query<{ id: string }>(`SELECT id FROM chain_actions`)).rows.map((row) => row.id));
  const lost = new Map(
    [...record.accepted].filter(
      ([promise, accepted]) =>
        !inLedger.has(promise) && restores.some((restore) => accepted.acceptedAt >= restore.dumpStartedAt && accepted.acceptedAt <= restore.restoredAt),
    ),
  );
  const lostValues = [...lost.values()];
  const reportedTickets = restores.flatMap((restore) => restore.report.lostTickets);
  const reportedTicketsByEvent = new Map<string, number>();
  for (const ticket of reportedTickets) {
    const eventIndex = (BigInt(ticket.tokenId) >> 64n).toString();
    reportedTicketsByEvent.set(eventIndex, (reportedTicketsByEvent.get(eventIndex) ?? 0) + 1);
  }
  return {
    lost,
    tickets: new Set(lostValues.flatMap((accepted) => (accepted.ticketId ? [accepted.ticketId] : []))),
    events: new Set(
      lostValues.flatMap((accepted) => ((accepted.kind === "newEvent" || accepted.kind === "updateEvent") && accepted.eventId ? [accepted.eventId] : [])),
    ),
    reportedTokens: new Set(reportedTickets.map((ticket) => ticket.tokenId)),
    reportedEventIndexes: new Set(restores.flatMap((restore) => restore.report.lostEvents.map((event) => event.eventIndex))),
    reportedTicketsByEvent,
    reportedFailures: restores.flatMap((restore) => restore.report.lostActions).filter((item) => item.failure !== null).length,
    restores,
  };
}

/**
 * The restores' own lines: every action accepted before a dump survived it; those accepted after it
 * are gone by design; and each reconcile report lists exactly the sales of that lost part that
 * reached the chain (every ticket it names was such a sale; tokens on chain the ledger lacks are
 * all named, see the mint line).
 */
export function restoreLines(losses: RestoreLosses): CheckLine[] {
  if (losses.restores.length === 0) return [];
  const lostSales = new Set(
    [...losses.lost.values()].flatMap((accepted) => (accepted.kind === "sold" && accepted.ticketId ? [ticketHashOf(accepted.ticketId)] : [])),
  );
  const reported = losses.restores.flatMap((restore) => restore.report.lostTickets);
  const strangers = reported.filter((ticket) => !lostSales.has(ticket.ticketHash));
  const byKind = new Map<string, number>();
  for (const accepted of losses.lost.values()) byKind.set(accepted.kind, (byKind.get(accepted.kind) ?? 0) + 1);
  return [
    info(
      "actions accepted between a dump and its restore: gone from the ledger by design",
      `${losses.lost.size} (${[...byKind].map(([kind, count]) => `${kind} ${count}`).join(", ") || "none"}); the reports: ${losses.restores.map((restore) => restore.reportFile).join(", ")}`,
    ),
    verdict(
      strangers.length === 0,
      "the reconcile reports name only sales accepted between the dump and the restore",
      `${reported.length} tickets named, of ${lostSales.size} sales lost (the others never reached the chain); not a lost sale: ${strangers.length}` +
        (strangers.length ? ` (${firstFew(strangers.map((ticket) => ticket.tokenId))})` : ""),
    ),
  ];
}
