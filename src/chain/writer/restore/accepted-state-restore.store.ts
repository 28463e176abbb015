import type { EntityManager } from "typeorm";

import { eventKeyOf } from "../../../registry";
import type { ChainTicketFacts, SubjectFacts, SubjectFactsReader } from "./subject-facts";
import { type LiveTicketAction, projectTicket } from "./ticket-projection";

/** What a restore changed: the tickets put back to what the chain holds, and the tickets and events released. */
export interface RestoredSubjects {
  tickets: number;
  releasedTickets: number;
  releasedEvents: number;
}

const NOTHING_RESTORED: RestoredSubjects = { tickets: 0, releasedTickets: 0, releasedEvents: 0 };

interface FailedSubjectRow {
  kind: string;
  ticket_ref: string | null;
  token_id: string | null;
  event_ref: string;
  event_index: string;
  ticketeer_id: string;
  event_id: string;
}

const NEVER_MINTED: ChainTicketFacts = { minted: false, checkedIn: false, invalidated: false, claimed: false, holder: null };

/**
 * Puts the accepted state of what failed actions acted on back to what the chain holds, inside the
 * caller's transaction (the one that ended the actions in error), so that the next valid action is
 * accepted: the ledger never goes on claiming what the chain refused.
 *
 * A ticket takes what the chain holds and will hold once the actions still on their way apply
 * (projectTicket). A ticket whose sale failed is released (its ticketId may be sold again), and so is an event whose
 * registration failed while the registry holds another event, or none, under its index.
 */
export async function restoreFailedSubjects(
  manager: EntityManager,
  failedActionIds: readonly string[],
  readFacts: SubjectFactsReader,
): Promise<RestoredSubjects> {
  if (failedActionIds.length === 0) return NOTHING_RESTORED;
  const rows = await failedSubjects(manager, failedActionIds);
  const tickets = rows.filter((row) => row.ticket_ref !== null);
  const registrations = rows.filter((row) => row.kind === "newEvent");
  if (tickets.length === 0 && registrations.length === 0) return NOTHING_RESTORED;
  const facts = await readFacts({
    tokenIds: [...new Set(tickets.map((row) => BigInt(row.token_id as string)))],
    eventIndexes: [...new Set(registrations.map((row) => BigInt(row.event_index)))],
  });
  const releasedEvents = await releaseUnregisteredEvents(manager, registrations, facts);
  const restored = await restoreTickets(manager, tickets, facts);
  return { ...restored, releasedEvents };
}

/** The events and tickets the failed actions acted on, unless released already. */
async function failedSubjects(manager: EntityManager, actionIds: readonly string[]): Promise<FailedSubjectRow[]> {
  return manager.query<FailedSubjectRow[]>(
    `SELECT DISTINCT a.kind, t.id AS ticket_ref, t.token_id::text, e.id AS event_ref, e.event_index::text, o.ticketeer_id, e.event_id
       FROM chain_actions a
       JOIN events e ON e.id = a.event_ref
       JOIN organizations o ON o.id = e.organization_id
       LEFT JOIN tickets t ON t.id = a.ticket_ref
      WHERE a.id = ANY($1::uuid[]) AND a.status = 'error' AND e.released_at IS NULL AND t.released_at IS NULL`,
    [actionIds],
  );
}

async function releaseUnregisteredEvents(manager: EntityManager, registrations: readonly FailedSubjectRow[], facts: SubjectFacts): Promise<number> {
  const released = registrations
    .filter((row) => facts.eventKeys.get(BigInt(row.event_index)) !== eventKeyOf(row.ticketeer_id, row.event_id))
    .map((row) => row.event_ref);
  if (released.length === 0) return 0;
  const [, count] = await manager.query<[unknown[], number]>(
    `UPDATE events SET released_at = now(), updated_at = now() WHERE id = ANY($1::uuid[]) AND released_at IS NULL`,
    [released],
  );
  return count;
}

async function restoreTickets(
  manager: EntityManager,
  tickets: readonly FailedSubjectRow[],
  facts: SubjectFacts,
): Promise<Omit<RestoredSubjects, "releasedEvents">> {
  if (tickets.length === 0) return { tickets: 0, releasedTickets: 0 };
  const actions = await liveActions(
    manager,
    tickets.map((row) => row.ticket_ref as string),
  );
  const projected = tickets.map((row) => ({
    ref: row.ticket_ref as string,
    ...projectTicket(facts.tickets.get(BigInt(row.token_id as string)) ?? NEVER_MINTED, actions.get(row.ticket_ref as string) ?? []),
  }));
  const [rows] = await manager.query<[{ released: boolean; event_ref: string }[], number]>(
    `UPDATE tickets AS t
        SET checked_in = p.checked_in, invalidated = p.invalidated, claimed = p.claimed, claimed_to = p.claimed_to, resales = p.resales,
            price = COALESCE(p.price, t.price), order_time = COALESCE(p.order_time, t.order_time),
            released_at = CASE WHEN p.sold THEN NULL ELSE now() END, updated_at = now()
       FROM unnest($1::uuid[], $2::bool[], $3::bool[], $4::bool[], $5::bool[], $6::text[], $7::int[], $8::text[], $9::numeric[])
         AS p(ref, sold, checked_in, invalidated, claimed, claimed_to, resales, price, order_time)
      WHERE t.id = p.ref AND t.released_at IS NULL
      RETURNING t.released_at IS NOT NULL AS released, t.event_ref`,
    [
      projected.map((p) => p.ref),
      projected.map((p) => p.sold),
      projected.map((p) => p.checkedIn),
      projected.map((p) => p.invalidated),
      projected.map((p) => p.claimed),
      projected.map((p) => p.claimedTo),
      projected.map((p) => p.resales),
      projected.map((p) => p.price),
      projected.map((p) => p.orderTime),
    ],
  );
  const released = rows.filter((row) => row.released);
  await uncountSales(
    manager,
    released.map((row) => row.event_ref),
  );
  return { tickets: rows.length - released.length, releasedTickets: released.length };
}

/** Each ticket's actions that did not fail and change what the registry holds of it, in acceptance order. */
async function liveActions(manager: EntityManager, ticketRefs: readonly string[]): Promise<Map<string, LiveTicketAction[]>> {
  const rows = await manager.query<{ ticket_ref: string; kind: string; open: boolean; payload: LiveTicketAction["payload"] }[]>(
    `SELECT ticket_ref, kind, status IN ('waiting_broadcast', 'waiting_funds', 'pending') AS open, payload
       FROM chain_actions
      WHERE ticket_ref = ANY($1::uuid[]) AND status <> 'error' AND kind IN ('sold', 'resold', 'scanned', 'invalidated', 'claimed')
      ORDER BY seq`,
    [ticketRefs],
  );
  const byTicket = new Map<string, LiveTicketAction[]>();
  for (const row of rows) byTicket.set(row.ticket_ref, [...(byTicket.get(row.ticket_ref) ?? []), { kind: row.kind, open: row.open, payload: row.payload }]);
  return byTicket;
}

/** A released ticket was never sold: its event's tickets sold count one less (event_sales rows add up). */
async function uncountSales(manager: EntityManager, eventRefs: readonly string[]): Promise<void> {
  if (eventRefs.length === 0) return;
  await manager.query(`INSERT INTO event_sales (event_ref, count) SELECT event_ref, -count(*) FROM unnest($1::uuid[]) AS r(event_ref) GROUP BY event_ref`, [
    eventRefs,
  ]);
}
