import { describe, expect, it } from "vitest";

import { ageLedger, cloneHistory } from "../../bench/growth/ledger-history";
import { callbackWhen, eventWithTickets } from "../support/callbacks-e2e";
import { useChainApp } from "../support/chain-app";
import { sqlOf } from "../support/chain-e2e";

/**
 * The history bench:growth loads in bulk is the service's own rows: the real app sells on a Hardhat
 * chain and delivers its callbacks, the ledger is aged past every retention period, then copied
 * twice. Every copied row equals its original in every column but those that identify it, which
 * follow the service's rules; and the service answers for a copied ticket and action as it does for
 * the original, but for their ids.
 */
const chainApp = useChainApp({ receiver: true });

const TICKET_IDENTITY = ["id", "event_ref", "ticket_id", "token_id"];
const ACTION_IDENTITY = ["id", "seq", "event_ref", "ticket_ref", "payload"];
const EVENT_IDENTITY = ["id", "event_id", "event_index"];
const TWO_TO_64 = 2n ** 64n;

const without = (row: Record<string, unknown>, columns: string[]) => Object.fromEntries(Object.entries(row).filter(([column]) => !columns.includes(column)));

describe("the history bench:growth copies", () => {
  it("are the rows the service wrote, with only their identities new", async () => {
    const { api, testApp, receiver } = chainApp;
    const sql = sqlOf(testApp);
    const { eventId, ticketIds, promises } = await eventWithTickets(api, receiver.url("/history"), 3);
    for (const promise of promises) await callbackWhen(api, eventId, promise, (view) => view.status === "delivered");

    const aged = await ageLedger(testApp.databaseUrl);
    expect(aged.callbacks).toBe(promises.length);
    const originals = {
      events: await sql(`SELECT * FROM events ORDER BY event_index`),
      tickets: await sql(`SELECT * FROM tickets ORDER BY serial`),
      actions: await sql(`SELECT * FROM chain_actions ORDER BY seq`),
    };
    const ticketAnswer = (await api.get(`/api/v1/tickets/${ticketIds[0]}`)).body;
    const actionAnswer = (await api.get(`/api/v1/actions/${promises[1]}`)).body;

    const clone = await cloneHistory(testApp.databaseUrl, ticketIds.length * 3);
    expect(clone).toMatchObject({ copies: 2, tickets: ticketIds.length * 3 });

    for (const copy of [1, 2]) {
      const [event] = await sql(`SELECT * FROM events WHERE event_id = $1`, [`h${copy}-${eventId}`]);
      const [original] = originals.events;
      expect(without(event, EVENT_IDENTITY)).toEqual(without(original, EVENT_IDENTITY));
      expect(BigInt(event.event_index)).toBeGreaterThan(BigInt(original.event_index));
      expect(event.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);

      const tickets = await sql(`SELECT * FROM tickets WHERE event_ref = $1 ORDER BY serial`, [event.id]);
      expect(tickets).toHaveLength(originals.tickets.length);
      tickets.forEach((ticket, i) => {
        const source = originals.tickets[i];
        expect(without(ticket, TICKET_IDENTITY)).toEqual(without(source, TICKET_IDENTITY));
        expect(ticket.ticket_id).toBe(`h${copy}-${source.ticket_id}`);
        expect(BigInt(ticket.token_id)).toBe(BigInt(event.event_index) * TWO_TO_64 + BigInt(ticket.serial));
      });

      const actions = await sql(`SELECT * FROM chain_actions WHERE event_ref = $1 ORDER BY seq`, [event.id]);
      expect(actions).toHaveLength(originals.actions.length);
      actions.forEach((action, i) => {
        const source = originals.actions[i];
        expect(without(action, ACTION_IDENTITY)).toEqual(without(source, ACTION_IDENTITY));
        expect(BigInt(action.seq)).toBeGreaterThan(BigInt(originals.actions.at(-1).seq));
        const ticket = tickets.find((row) => row.id === action.ticket_ref);
        if (action.ticket_ref === null) expect(source.ticket_ref).toBeNull();
        else expect(ticket).toBeDefined();
        const payloadKeys = Object.keys(source.payload ?? {}).sort();
        expect(Object.keys(action.payload ?? {}).sort()).toEqual(payloadKeys);
        if (source.payload?.tokenId !== undefined) expect(action.payload.tokenId).toBe(String(ticket.token_id));
        if (source.payload?.ticketHash !== undefined) expect(action.payload.ticketHash).toMatch(/^0x[0-9a-f]{64}$/);
        const identity = ["tokenId", "ticketHash", "eventIndex"];
        expect(without(action.payload ?? {}, identity)).toEqual(without(source.payload ?? {}, identity));
      });
    }

    // The service reads a copy as it reads the original.
    const copiedTicket = await api.get(`/api/v1/tickets/h1-${ticketIds[0]}`);
    expect(copiedTicket.status).toBe(200);
    const identityOf = (body: any) => ({
      ...without(body, ["ticketId", "eventId", "tokenId", "actions", "tokenUri", "verifyUrl"]),
      chain: without(body.chain, ["eventIndex", "tokenId"]),
    });
    expect(identityOf(copiedTicket.body)).toEqual(identityOf(ticketAnswer));
    const [copiedSale] = await sql(`SELECT a.id FROM chain_actions a JOIN tickets t ON t.id = a.ticket_ref WHERE t.ticket_id = $1 AND a.kind = 'sold'`, [
      `h1-${ticketIds[0]}`,
    ]);
    const copiedAction = await api.get(`/api/v1/actions/${copiedSale.id}`);
    expect(copiedAction.status).toBe(200);
    expect(without(copiedAction.body, ["actionPromise", "ticketId", "eventId"])).toEqual(without(actionAnswer, ["actionPromise", "ticketId", "eventId"]));
  });
});
