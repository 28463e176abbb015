import type { Pool } from "pg";

import { RegistryItemFailure } from "../../../src/registry/registry-failures";
import type { TicketRegistry } from "../../../typechain-types";
import { type CheckLine, countsOf, firstFew, verdict } from "./check-line";
import { type ChainTally, tallyRegistryLogs } from "./registry-logs";
import type { RestoreLosses } from "./restore-losses";

interface LedgerTicket {
  token_id: string;
  ticket_id: string;
  checked_in: boolean;
  invalidated: boolean;
  claimed: boolean;
  claimed_to: string | null;
  resales: number;
  holder: string | null;
  /** Confirmed actions of the ticket by kind. */
  confirmed: Record<string, number>;
}

interface LedgerEvent {
  event_index: string;
  event_id: string;
  tickets: number;
  updates: number;
}

/**
 * The chain against the ledger, from the registry's own logs and views: each ticket minted once,
 * each confirmed resale, check-in, invalidation and claim applied exactly once (and nothing
 * else), each event registered once and updated once per confirmed update, ticketsSold per event,
 * the registry's refusals equal to the ledger's on-chain errors, and the state of a sample of
 * tickets (flags, resales, holder) as the ledger has it.
 */
export async function checkChain(db: Pool, registry: TicketRegistry, sampleSize: number, losses?: RestoreLosses): Promise<CheckLine[]> {
  const tally = await tallyRegistryLogs(registry);
  const allTickets = await ledgerTickets(db);
  // A ticket or an event a lost action acted on may be further on chain than in the ledger: left out of the comparisons.
  const tickets = allTickets.filter((ticket) => !losses?.tickets.has(ticket.ticket_id));
  const allEvents = (
    await db.query<LedgerEvent>(
      `SELECT e.event_index::text, e.event_id,
              (SELECT count(*) FROM tickets t WHERE t.event_ref = e.id)::int AS tickets,
              (SELECT count(*) FROM chain_actions a WHERE a.event_ref = e.id AND a.ticket_ref IS NULL AND a.kind = 'updateEvent' AND a.status = 'confirmed')::int AS updates
         FROM events e`,
    )
  ).rows;
  const events = allEvents.filter((event) => !losses?.events.has(event.event_id));
  const errors = (await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM chain_actions WHERE status = 'error'`)).rows[0].n;
  return [
    mintLine(tally, allTickets, losses?.reportedTokens ?? new Set()),
    perTicketLine(
      "resales on chain = confirmed resales in the ledger",
      tickets,
      (t) => tally.resales.get(id(t)) ?? 0,
      (t) => t.confirmed.resold ?? 0,
    ),
    perTicketLine(
      "check-in records on chain = confirmed scans in the ledger",
      tickets,
      (t) => tally.checkIns.get(id(t)) ?? 0,
      (t) => t.confirmed.scanned ?? 0,
    ),
    perTicketLine(
      "invalidations on chain = confirmed invalidations",
      tickets,
      (t) => tally.invalidations.get(id(t)) ?? 0,
      (t) => t.confirmed.invalidated ?? 0,
    ),
    perTicketLine(
      "transfers on chain = mint + confirmed resales + confirmed claims",
      tickets,
      (t) => tally.transfers.get(id(t)) ?? 0,
      (t) => 1 + (t.confirmed.resold ?? 0) + (t.confirmed.claimed ?? 0),
    ),
    eventLogLine(tally, events, allEvents.length + (losses?.reportedEventIndexes.size ?? 0)),
    await ticketsSoldLine(registry, events, losses?.reportedTicketsByEvent ?? new Map()),
    failuresLine(tally, errors, losses?.reportedFailures ?? 0),
    await sampleLine(registry, tickets, sampleSize),
  ];
}

const id = (ticket: LedgerTicket) => BigInt(ticket.token_id);

async function ledgerTickets(db: Pool): Promise<LedgerTicket[]> {
  const rows = (
    await db.query<Omit<LedgerTicket, "confirmed"> & { id: string }>(
      `SELECT id, token_id::text, ticket_id, checked_in, invalidated, claimed, claimed_to, resales, holder FROM tickets`,
    )
  ).rows;
  const counts = (
    await db.query<{ ticket_ref: string; kind: string; n: number }>(
      `SELECT ticket_ref, kind, count(*)::int AS n FROM chain_actions WHERE ticket_ref IS NOT NULL AND status = 'confirmed' GROUP BY ticket_ref, kind`,
    )
  ).rows;
  const confirmed = new Map<string, Record<string, number>>();
  for (const row of counts) confirmed.set(row.ticket_ref, { ...confirmed.get(row.ticket_ref), [row.kind]: row.n });
  return rows.map(({ id: ticketRef, ...ticket }) => ({ ...ticket, confirmed: confirmed.get(ticketRef) ?? {} }));
}

/** `reported`: tokens a restore's reconcile named as on chain and lost from the ledger; each of them, and only they, may be minted without a ledger row. */
function mintLine(tally: ChainTally, tickets: LedgerTicket[], reported: ReadonlySet<string>): CheckLine {
  const known = new Set(tickets.map((ticket) => ticket.token_id));
  const missing = tickets.filter((ticket) => (tally.mints.get(id(ticket)) ?? 0) === 0).map((ticket) => ticket.ticket_id);
  const twice = tickets.filter((ticket) => (tally.mints.get(id(ticket)) ?? 0) > 1).map((ticket) => ticket.ticket_id);
  const unknown = [...tally.mints.keys()].filter((tokenId) => !known.has(tokenId.toString())).map(String);
  const strangers = unknown.filter((tokenId) => !reported.has(tokenId));
  const unminted = [...reported].filter((tokenId) => !tally.mints.has(BigInt(tokenId)) || known.has(tokenId));
  return verdict(
    missing.length + twice.length + strangers.length + unminted.length === 0,
    "every ticket minted exactly once",
    `${tickets.length} tickets, ${tally.mints.size} tokens minted; never minted: ${missing.length}, minted more than once: ${twice.length}, minted but not in the ledger: ${unknown.length}` +
      (reported.size
        ? ` (all named by the reconcile reports: ${strangers.length === 0 ? "yes" : `no, ${strangers.length} not`}; named but not such a token: ${unminted.length})`
        : "") +
      (missing.length + twice.length + strangers.length + unminted.length ? ` (${firstFew([...missing, ...twice, ...strangers, ...unminted])})` : ""),
  );
}

function perTicketLine(
  check: string,
  tickets: LedgerTicket[],
  onChain: (ticket: LedgerTicket) => number,
  inLedger: (ticket: LedgerTicket) => number,
): CheckLine {
  const differing = tickets.filter((ticket) => onChain(ticket) !== inLedger(ticket));
  const total = tickets.reduce((sum, ticket) => sum + inLedger(ticket), 0);
  return verdict(
    differing.length === 0,
    check,
    `${total} in the ledger; tickets differing: ${differing.length}` +
      (differing.length ? ` (${firstFew(differing.map((t) => `${t.ticket_id}: chain ${onChain(t)}, ledger ${inLedger(t)}`))})` : ""),
  );
}

/** `registered`: how many events the registry must hold (the ledger's, and those a restore's reconcile reported lost). */
function eventLogLine(tally: ChainTally, events: LedgerEvent[], registered: number): CheckLine {
  const wrong = events.filter(
    (event) => (tally.registrations.get(BigInt(event.event_index)) ?? 0) !== 1 || (tally.eventUpdates.get(BigInt(event.event_index)) ?? 0) !== event.updates,
  );
  const updates = events.reduce((sum, event) => sum + event.updates, 0);
  return verdict(
    wrong.length === 0 && tally.registrations.size === registered,
    "each event registered once, updated once per confirmed update",
    `${events.length} events (${tally.registrations.size} registered on chain), ${updates} confirmed updates; differing: ${wrong.length}` +
      (wrong.length ? ` (${firstFew(wrong.map((event) => event.event_id))})` : ""),
  );
}

/** `reported`: per event index, the tickets a restore's reconcile reported on chain and lost from the ledger. */
async function ticketsSoldLine(registry: TicketRegistry, events: LedgerEvent[], reported: ReadonlyMap<string, number>): Promise<CheckLine> {
  const differing: string[] = [];
  for (const event of events) {
    // The view reverts for an event the registry does not know.
    const onChain = await registry.eventRecord(BigInt(event.event_index)).then(
      (record) => record.ticketsSold,
      () => "not registered",
    );
    const expected = BigInt(event.tickets + (reported.get(event.event_index) ?? 0));
    if (onChain !== expected) differing.push(`${event.event_id}: chain ${onChain}, ledger ${event.tickets}`);
  }
  return verdict(
    differing.length === 0,
    "ticketsSold of every event (registry view) = its tickets in the ledger",
    `${events.length} events; differing: ${differing.length}${differing.length ? ` (${firstFew(differing)})` : ""}`,
  );
}

/** Refusals the writer answers by sending the item again behind its event or sale, rather than as an error. */
const ORDER_FAILURES: readonly bigint[] = [BigInt(RegistryItemFailure.EventUnknown), BigInt(RegistryItemFailure.TicketUnknown)];

/**
 * `reportedFailures`: refused items of a restore's lost part (no ledger action stands for them). An item
 * refused only for order (its event or its sale not mined yet) goes back in line: such a refusal whose
 * token was minted after all is one of those, not an error.
 */
function failuresLine(tally: ChainTally, ledgerErrors: number, reportedFailures: number): CheckLine {
  const resent = tally.failures.filter((failure) => ORDER_FAILURES.includes(failure.reason) && tally.mints.has(failure.subject));
  const reasons = tally.failures.map((failure) => RegistryItemFailure[Number(failure.reason)] ?? `reason ${failure.reason}`);
  return verdict(
    tally.failures.length - resent.length === ledgerErrors + reportedFailures,
    "items the registry refused = actions in error in the ledger + items refused for order and sent again",
    `${tally.failures.length} on chain (${countsOf(reasons) || "none"}), ${ledgerErrors} in the ledger, ${resent.length} refused for order and sent again` +
      (reportedFailures ? ` and ${reportedFailures} of a restore's lost part (reconcile reports)` : ""),
  );
}

/** ticket(tokenId) — the same holder ownerOf answers — for a random sample, against the ledger. */
async function sampleLine(registry: TicketRegistry, tickets: LedgerTicket[], sampleSize: number): Promise<CheckLine> {
  const sample = randomSample(tickets, sampleSize);
  const differing: string[] = [];
  for (const ticket of sample) {
    const view = await registry.ticket(id(ticket)).catch(() => null);
    if (!view) {
      differing.push(`${ticket.ticket_id}: not minted`);
      continue;
    }
    const claimConfirmed = (ticket.confirmed.claimed ?? 0) > 0;
    const expectedHolder = (claimConfirmed ? ticket.claimed_to : ticket.holder)?.toLowerCase();
    const problems = [
      view.checkedIn !== ticket.checked_in && "checkedIn",
      view.invalidated !== ticket.invalidated && "invalidated",
      view.claimed !== claimConfirmed && "claimed",
      Number(view.resales) !== ticket.resales && "resales",
      view.holder.toLowerCase() !== expectedHolder && "holder",
    ].filter(Boolean);
    if (problems.length > 0) differing.push(`${ticket.ticket_id}: ${problems.join(", ")}`);
  }
  return verdict(
    differing.length === 0,
    "ticket views (flags, resales, holder = ownerOf) agree with the ledger",
    `${sample.length} of ${tickets.length} tickets checked; differing: ${differing.length}${differing.length ? ` (${firstFew(differing)})` : ""}`,
  );
}

/** `size` distinct items picked at random (a partial Fisher–Yates shuffle). */
function randomSample<T>(items: readonly T[], size: number): T[] {
  const pool = [...items];
  const count = Math.min(size, pool.length);
  for (let i = 0; i < count; i++) {
    const j = i + Math.floor(Math.random() * (pool.length - i));
    [pool[i], pool[j]] = [pool[j], pool[i]];
  }
  return pool.slice(0, count);
}
