import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { restoreFailedSubjects } from "../../src/chain/writer/restore/accepted-state-restore.store";
import type { ChainTicketFacts } from "../../src/chain/writer/restore/subject-facts";
import type { RegistryBatchItem } from "../../src/registry";
import { chainHolds, checkIn, claim, sale, type SeededEvent, type SeededTicket, WALLET, WriterLedger } from "../support/writer-ledger";

/**
 * A failed action's subject goes back to what the chain holds: the ticket's flags are the chain's plus
 * those its actions still on their way set; resales, price and order time come from its sale and
 * resales that did not fail; a failed sale releases the ticket.
 */

const OTHER_WALLET = "0x1111111111111111111111111111111111111111";
const NOT_MINTED: ChainTicketFacts = { minted: false, checkedIn: false, invalidated: false, claimed: false, holder: null };
const CUSTODY = "0x2222222222222222222222222222222222222222";
const minted = (flags: Partial<ChainTicketFacts> = {}): ChainTicketFacts => ({ ...NOT_MINTED, minted: true, holder: CUSTODY, ...flags });

let ledger: WriterLedger;

beforeAll(async () => {
  ledger = await WriterLedger.open();
});

afterAll(async () => {
  await ledger?.close();
});

const resale = (ticket: SeededTicket, price: string, orderTime: bigint): RegistryBatchItem => ({ action: "resold", tokenId: ticket.tokenId, price, orderTime });
const invalidation = (ticket: SeededTicket): RegistryBatchItem => ({ action: "invalidated", tokenId: ticket.tokenId, orderTime: 3n });

/** Accepts the items for one ticket and gives each action the status named (as if the chain writer had got that far). */
async function ticketWithActions(steps: { item: (ticket: SeededTicket) => RegistryBatchItem; status: string }[]) {
  const event = await ledger.ownShardEvent(1);
  const ticket = event.tickets[0];
  const ids = await ledger.accept(
    event,
    steps.map((step) => ({ ticket, item: step.item(ticket) })),
  );
  for (const [index, step] of steps.entries()) {
    await ledger.sql(`UPDATE chain_actions SET status = $2, error_code = CASE WHEN $2 = 'error' THEN 'onchain_refused' END WHERE id = $1`, [
      ids[index],
      step.status,
    ]);
  }
  return { event, ticket, ids };
}

async function restore(ids: string[], tickets: Map<bigint, ChainTicketFacts>) {
  return ledger.dataSource.transaction((manager) => restoreFailedSubjects(manager, ids, chainHolds(tickets)));
}

async function ticketRow(ticket: SeededTicket) {
  const [row] = await ledger.sql<{
    checked_in: boolean;
    invalidated: boolean;
    claimed: boolean;
    claimed_to: string | null;
    resales: number;
    price: string;
    order_time: string;
    released: boolean;
  }>(`SELECT checked_in, invalidated, claimed, claimed_to, resales, price, order_time, released_at IS NOT NULL AS released FROM tickets WHERE id = $1`, [
    ticket.ref,
  ]);
  return row;
}

async function soldCount(event: SeededEvent): Promise<number> {
  const [row] = await ledger.sql<{ sold: string }>(
    `SELECT (e.tickets_sold + COALESCE((SELECT sum(count) FROM event_sales s WHERE s.event_ref = e.id), 0))::text AS sold FROM events e WHERE e.id = $1`,
    [event.ref],
  );
  return Number(row.sold);
}

describe("restoreFailedSubjects", () => {
  it("leaves a ticket whose claim the chain refused checked in and unclaimed", async () => {
    const { ticket, ids } = await ticketWithActions([
      { item: sale, status: "confirmed" },
      { item: checkIn, status: "confirmed" },
      { item: (t) => claim(t, WALLET), status: "error" },
    ]);
    await ledger.sql(`UPDATE tickets SET checked_in = true, claimed = true, claimed_to = $2 WHERE id = $1`, [ticket.ref, WALLET]);

    expect(await restore([ids[2]], new Map([[ticket.tokenId, minted({ checkedIn: true })]]))).toEqual({ tickets: 1, released: 0 });
    expect(await ticketRow(ticket)).toMatchObject({ checked_in: true, claimed: false, claimed_to: null, released: false });
  });

  it("takes what the chain holds that the ledger never did: a ticket checked in elsewhere refuses the resale, and stays checked in", async () => {
    const { ticket, ids } = await ticketWithActions([
      { item: sale, status: "confirmed" },
      { item: (t) => resale(t, "20.00", 7n), status: "confirmed" },
      { item: (t) => resale(t, "30.00", 8n), status: "error" },
    ]);
    await ledger.sql(`UPDATE tickets SET resales = 2, price = '30.00', order_time = 8 WHERE id = $1`, [ticket.ref]);

    await restore([ids[2]], new Map([[ticket.tokenId, minted({ checkedIn: true })]]));
    expect(await ticketRow(ticket)).toMatchObject({ checked_in: true, resales: 1, price: "20.00", order_time: "7" });
  });

  it("keeps what the actions still on their way set: a later check-in waiting for the writer", async () => {
    const { ticket, ids } = await ticketWithActions([
      { item: sale, status: "confirmed" },
      { item: (t) => resale(t, "20.00", 7n), status: "error" },
      { item: checkIn, status: "waiting_broadcast" },
    ]);
    await ledger.sql(`UPDATE tickets SET resales = 1, price = '20.00', checked_in = true WHERE id = $1`, [ticket.ref]);

    await restore([ids[1]], new Map([[ticket.tokenId, minted()]]));
    expect(await ticketRow(ticket)).toMatchObject({ checked_in: true, resales: 0, price: "10.00", invalidated: false });
  });

  it("names the chain's holder as the receiver of a claim made elsewhere", async () => {
    const { ticket, ids } = await ticketWithActions([
      { item: sale, status: "confirmed" },
      { item: checkIn, status: "confirmed" },
      { item: (t) => claim(t, WALLET), status: "error" },
    ]);
    await restore([ids[2]], new Map([[ticket.tokenId, minted({ checkedIn: true, claimed: true, holder: OTHER_WALLET })]]));
    expect(await ticketRow(ticket)).toMatchObject({ claimed: true, claimed_to: OTHER_WALLET });
  });

  it("releases a ticket whose sale failed, counts it unsold, and lets its ticketId be sold again", async () => {
    const { event, ticket, ids } = await ticketWithActions([
      { item: sale, status: "error" },
      { item: checkIn, status: "error" },
    ]);
    const soldBefore = await soldCount(event);
    // The token under its id is another's: that it is minted does not make the failed sale the ledger's.
    expect(await restore(ids, new Map([[ticket.tokenId, minted()]]))).toEqual({ tickets: 0, released: 1 });
    expect(await ticketRow(ticket)).toMatchObject({ released: true });
    expect(await soldCount(event)).toBe(soldBefore - 1);

    const [row] = await ledger.sql<{ ticket_id: string; organization_id: string }>(`SELECT ticket_id, organization_id FROM tickets WHERE id = $1`, [
      ticket.ref,
    ]);
    await ledger.sql(`INSERT INTO tickets (organization_id, event_ref, ticket_id, serial, token_id, price, order_time) VALUES ($1, $2, $3, 99, $4, '1', 0)`, [
      row.organization_id,
      event.ref,
      row.ticket_id,
      ((event.eventIndex << 64n) | 99n).toString(),
    ]);
    // A second restore of the same failures changes nothing: the released ticket stays released, the new one untouched.
    expect(await restore(ids, new Map([[ticket.tokenId, NOT_MINTED]]))).toEqual({ tickets: 0, released: 0 });
  });

  it("keeps a ticket whose sale is still on its way, though its token is not minted yet", async () => {
    const { ticket, ids } = await ticketWithActions([
      { item: sale, status: "pending" },
      { item: checkIn, status: "error" },
    ]);
    await restore([ids[1]], new Map([[ticket.tokenId, NOT_MINTED]]));
    expect(await ticketRow(ticket)).toMatchObject({ released: false, checked_in: false });
  });

  it("changes nothing for actions that did not fail", async () => {
    const { ticket, ids } = await ticketWithActions([
      { item: sale, status: "confirmed" },
      { item: checkIn, status: "confirmed" },
    ]);
    await ledger.sql(`UPDATE tickets SET checked_in = true WHERE id = $1`, [ticket.ref]);
    expect(await restore(ids, new Map([[ticket.tokenId, NOT_MINTED]]))).toEqual({ tickets: 0, released: 0 });
    expect(await ticketRow(ticket)).toMatchObject({ checked_in: true, released: false });
  });
});

/** The statuses an action of the ledger can be in once the ticket's last failure is being closed. */
const STATUSES = ["confirmed", "error", "waiting_broadcast", "pending"] as const;
const OPEN = new Set<string>(["waiting_broadcast", "pending"]);
type Step = { kind: "resold" | "scanned" | "invalidated" | "claimed"; status: (typeof STATUSES)[number]; price: number };

/** The states the registry can hold a minted ticket in. */
const CHAIN_STATES: Partial<ChainTicketFacts>[] = [{}, { checkedIn: true }, { invalidated: true }, { checkedIn: true, claimed: true, holder: OTHER_WALLET }];

describe("restoreFailedSubjects, for any history of a sold ticket and any state of its token", () => {
  it("keeps every flag the chain holds, adds only flags of actions on their way, and counts only resales that did not fail", async () => {
    const step = fc.record({
      kind: fc.constantFrom<Step["kind"][]>("resold", "scanned", "invalidated", "claimed"),
      status: fc.constantFrom(...STATUSES),
      price: fc.integer({ min: 1, max: 999 }),
    });
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 6 }), fc.constantFrom(...CHAIN_STATES), async (steps, chainState) => {
        fc.pre(steps.some((s) => s.status === "error"));
        const { ticket, ids } = await ticketWithActions([{ item: sale, status: "confirmed" }, ...steps.map((s) => ({ item: itemOf(s), status: s.status }))]);
        const chain = minted(chainState);
        await restore(ids, new Map([[ticket.tokenId, chain]]));

        const row = await ticketRow(ticket);
        const onTheWay = (kind: Step["kind"]) => steps.some((s) => s.kind === kind && OPEN.has(s.status));
        const resales = (statuses: string[]) => steps.filter((s) => s.kind === "resold" && statuses.includes(s.status)).length;
        expect(row.released).toBe(false);
        for (const [flag, kind] of [
          ["checked_in", "scanned"],
          ["invalidated", "invalidated"],
          ["claimed", "claimed"],
        ] as const) {
          const held = { checked_in: chain.checkedIn, invalidated: chain.invalidated, claimed: chain.claimed }[flag];
          if (held) expect(row[flag]).toBe(true);
          if (!held && row[flag]) expect(onTheWay(kind)).toBe(true);
        }
        expect(row.claimed_to !== null).toBe(row.claimed);
        if (chain.claimed && !steps.some((s) => s.kind === "claimed" && s.status === "confirmed")) expect(row.claimed_to).toBe(OTHER_WALLET);
        expect(row.resales).toBeGreaterThanOrEqual(resales(["confirmed"]));
        expect(row.resales).toBeLessThanOrEqual(resales(["confirmed", ...OPEN]));
      }),
      { numRuns: 80 },
    );
  });
});

function itemOf(step: Step): (ticket: SeededTicket) => RegistryBatchItem {
  if (step.kind === "resold") return (ticket) => resale(ticket, `${step.price}.00`, BigInt(step.price));
  if (step.kind === "scanned") return checkIn;
  if (step.kind === "invalidated") return invalidation;
  return (ticket) => claim(ticket, WALLET);
}

describe("restoreFailedSubjects: an event's cancellation", () => {
  /** An event with a sale and its cancellation accepted (the event cancelled), the cancellation ended in error with `code`. */
  async function failedCancellation(code: string) {
    const event = await ledger.ownShardEvent(1);
    const ticket = event.tickets[0];
    const [, cancellation] = await ledger.accept(event, [
      { ticket, item: sale(ticket) },
      { ticket: null, item: { action: "cancelEvent", eventIndex: event.eventIndex } },
    ]);
    await ledger.sql(`UPDATE events SET cancelled_at = now() WHERE id = $1`, [event.ref]);
    await ledger.sql(`UPDATE chain_actions SET status = 'error', error_code = $2 WHERE id = $1`, [cancellation, code]);
    return { event, ticket, cancellation };
  }

  const cancelled = async (event: SeededEvent) =>
    (await ledger.sql<{ cancelled: boolean }>(`SELECT cancelled_at IS NOT NULL AS cancelled FROM events WHERE id = $1`, [event.ref]))[0].cancelled;

  it("is undone when the registry refused it: the event and its tickets are as the chain holds them", async () => {
    const { event, ticket, cancellation } = await failedCancellation("onchain_event_unknown");
    const before = await ticketRow(ticket);
    await restore([cancellation], new Map([[ticket.tokenId, minted()]]));
    expect(await cancelled(event)).toBe(false);
    expect(await ticketRow(ticket)).toEqual(before);
  });

  it("stands when the registry holds the event cancelled already", async () => {
    const { event, cancellation } = await failedCancellation("onchain_event_cancelled");
    await restore([cancellation], new Map());
    expect(await cancelled(event)).toBe(true);
  });

  it("stands while another cancellation of the event is still on its way", async () => {
    const { event, cancellation } = await failedCancellation("onchain_reverted");
    await ledger.accept(event, [{ ticket: null, item: { action: "cancelEvent", eventIndex: event.eventIndex } }]);
    await restore([cancellation], new Map());
    expect(await cancelled(event)).toBe(true);
  });
});
