import type { EntityManager } from "typeorm";

import type { ChainTicketFacts, SubjectFacts, SubjectFactsReader } from "./subject-facts";
import { type LiveTicketAction, projectTicket } from "./ticket-projection";

/** What a restore changed: the tickets put back to what the chain holds, and those released. */
export interface RestoredTickets {
  tickets: number;
  released: number;
}

const NOTHING_RESTORED: RestoredTickets = { tickets: 0, released: 0 };
const NEVER_MINTED: ChainTicketFacts = { minted: false, checkedIn: false, invalidated: false, claimed: false, holder: null };

/**
 * Puts the accepted state of the tickets failed actions acted on back to what the chain holds, inside
 * the caller's transaction (the one that ended the actions in error), so that the next valid action
 * is accepted: the ledger never goes on claiming what the chain refused. A ticket takes what the chain
 * holds and will hold once the actions still on their way apply (projectTicket); one whose sale
 * failed is released: its ticketId may be sold again. An event whose cancellation failed is no
 * longer cancelled (restoreFailedCancellations).
 *
 * An event whose registration the registry refused keeps its accepted state: the only refusal an
 * accepted registration can meet is an index another operator registered first, and the registry
 * then applies the event's later actions to what it holds under that index (`ledger reconcile`
 * reports the event it does not know).
 */
export async function restoreFailedSubjects(
  manager: EntityManager,
  failedActionIds: readonly string[],
  readFacts: SubjectFactsReader,
): Promise<RestoredTickets> {
  if (failedActionIds.length === 0) return NOTHING_RESTORED;
  await restoreFailedCancellations(manager, failedActionIds);
  const tickets = await failedTickets(manager, failedActionIds);
  if (tickets.length === 0) return NOTHING_RESTORED;
  const facts = await readFacts({ tokenIds: [...new Set(tickets.map((row) => row.tokenId))] });
  return restoreTickets(manager, tickets, facts);
}

/**
 * An event whose cancellation the registry refused is not cancelled, unless the refusal says the registry
 * holds it cancelled already (onchain_event_cancelled) or another cancellation of it is still on its way.
 * Its tickets never changed: with the event, they are as the chain holds them.
 */
async function restoreFailedCancellations(manager: EntityManager, actionIds: readonly string[]): Promise<void> {
  await manager.query(
    `UPDATE events e SET cancelled_at = NULL, updated_at = now()
       FROM chain_actions a
      WHERE a.id = ANY($1::uuid[]) AND a.status = 'error' AND a.kind = 'cancelledEvent' AND a.error_code IS DISTINCT FROM 'onchain_event_cancelled'
        AND e.id = a.event_ref AND e.cancelled_at IS NOT NULL
        AND NOT EXISTS (SELECT 1 FROM chain_actions b WHERE b.event_ref = e.id AND b.ticket_ref IS NULL AND b.kind = 'cancelledEvent' AND b.status NOT IN ('error', 'cancelled'))`,
    [actionIds],
  );
}

interface FailedTicket {
  ref: string;
  tokenId: bigint;
}

/** The tickets the failed actions acted on, unless released already. */
async function failedTickets(manager: EntityManager, actionIds: readonly string[]): Promise<FailedTicket[]> {
  const rows = await manager.query<{ ref: string; token_id: string }[]>(
    `SELECT DISTINCT t.id AS ref, t.token_id::text
       FROM chain_actions a JOIN tickets t ON t.id = a.ticket_ref
      WHERE a.id = ANY($1::uuid[]) AND a.status = 'error' AND t.released_at IS NULL`,
    [actionIds],
  );
  return rows.map((row) => ({ ref: row.ref, tokenId: BigInt(row.token_id) }));
}

async function restoreTickets(manager: EntityManager, tickets: readonly FailedTicket[], facts: SubjectFacts): Promise<RestoredTickets> {
  const actions = await liveActions(
    manager,
    tickets.map((ticket) => ticket.ref),
  );
  const projected = tickets.map((ticket) => ({
    ref: ticket.ref,
    ...projectTicket(facts.tickets.get(ticket.tokenId) ?? NEVER_MINTED, actions.get(ticket.ref) ?? []),
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
  return { tickets: rows.length - released.length, released: released.length };
}

/** Each ticket's actions that did not fail and change what the registry holds of it, in acceptance order. */
async function liveActions(manager: EntityManager, ticketRefs: readonly string[]): Promise<Map<string, LiveTicketAction[]>> {
  const rows = await manager.query<{ ticket_ref: string; kind: string; open: boolean; payload: LiveTicketAction["payload"] }[]>(
    `SELECT ticket_ref, kind, status IN ('waiting_broadcast', 'waiting_funds', 'pending') AS open, payload
       FROM chain_actions
      WHERE ticket_ref = ANY($1::uuid[]) AND status NOT IN ('error', 'cancelled') AND kind IN ('sold', 'resold', 'scanned', 'invalidated', 'claimed')
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
