import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { uuidv7 } from "../../src/common/uuid-v7";
import { ActionRecorder } from "../../src/ledger/action-recorder";
import { ChainActionsStore } from "../../src/ledger/chain-actions.store";
import { insertCallbacks } from "../../src/ledger/outbox";
import { registryItemFromJson } from "../../src/registry";
import { openStoreDatabase, type StoreDatabase } from "../support/store-database";

let db: StoreDatabase;
let store: ChainActionsStore;
let organizationId: string;
let otherOrganizationId: string;

beforeAll(async () => {
  db = await openStoreDatabase();
  store = new ChainActionsStore(db.dataSource);
  organizationId = await db.organization("ticketeer-a");
  otherOrganizationId = await db.organization("ticketeer-b");
});

afterAll(async () => {
  await db?.close();
});

/** An event and a ticket of the organization, as an acceptance would have written them. */
async function eventWithTicket(): Promise<{ eventRef: string; ticketRef: string; eventId: string; ticketId: string }> {
  const eventRef = uuidv7();
  const ticketRef = uuidv7();
  const eventId = `event-${eventRef.slice(-8)}`;
  const ticketId = `ticket-${ticketRef.slice(-8)}`;
  await db.dataSource.query(
    `INSERT INTO events (id, organization_id, event_id, currency, callback_url) VALUES ($1, $2, $3, 'EUR', 'https://integrator.example.com/cb')`,
    [eventRef, organizationId, eventId],
  );
  await db.dataSource.query(
    `INSERT INTO tickets (id, organization_id, event_ref, ticket_id, serial, token_id, price, order_time)
     VALUES ($1, $2, $3, $4, 1, (random() * 1e15)::numeric(39, 0), '10.00', 0)`,
    [ticketRef, organizationId, eventRef, ticketId],
  );
  return { eventRef, ticketRef, eventId, ticketId };
}

/** Records `entries` through the real recorder in one transaction, as an acceptance does; returns their ids. */
async function record(entries: Parameters<ActionRecorder["record"]>[0][], requestId = "request-7"): Promise<string[]> {
  return db.dataSource.transaction(async (manager) => {
    const recorder = new ActionRecorder(manager, organizationId, requestId);
    const ids = entries.map((entry) => recorder.record(entry));
    await recorder.flush();
    return ids;
  });
}

describe("ActionRecorder and ChainActionsStore", () => {
  it("writes ledger rows in acceptance order, waiting for the chain, with their payload and request id", async () => {
    const { eventRef, ticketRef } = await eventWithTicket();
    const checkIn = { action: "checkedIn", tokenId: 5n, orderTime: 1_750_000_000n } as const;
    const [sold, scanned] = await record([
      {
        kind: "sold",
        requestedAs: "soldTicket",
        eventRef,
        eventIndex: 1n,
        ticketRef,
        onChain: { action: "sold", tokenId: 5n, ticketHash: "0x" + "ab".repeat(32), price: "10.00", orderTime: 1n },
      },
      { kind: "scanned", requestedAs: "checkedInTicket", eventRef, eventIndex: 1n, ticketRef, onChain: checkIn },
    ]);
    const history = (await store.listForTickets([ticketRef])).get(ticketRef)!;
    expect(history.map((action) => [action.id, action.kind, action.requestedAs, action.status, action.requestId])).toEqual([
      [sold, "sold", "soldTicket", "waiting_broadcast", "request-7"],
      [scanned, "scanned", "checkedInTicket", "waiting_broadcast", "request-7"],
    ]);
    expect(history[1].seq).toBeGreaterThan(history[0].seq);
    expect(registryItemFromJson(history[1].payload!)).toEqual(checkIn);
  });

  it("marks a change with nothing on chain final at once and puts its callback in the outbox", async () => {
    const { eventRef, ticketRef, eventId, ticketId } = await eventWithTicket();
    // An updateEvent of its callbackUrl only is the one such change; the store takes any kind so.
    const [update] = await record([{ kind: "updateTicket", requestedAs: "updateTicket", eventRef, eventIndex: 1n, ticketRef, onChain: null }]);
    const [action] = (await store.listForTickets([ticketRef])).get(ticketRef)!;
    expect(action).toMatchObject({ id: update, status: "no_broadcast_required", payload: null });
    const [callback] = await db.dataSource.query<
      {
        status: string;
        order_key: string;
        payload: Record<string, unknown>;
      }[]
    >(`SELECT status, order_key, payload FROM callbacks WHERE action_id = $1`, [update]);
    expect(callback).toMatchObject({ status: "pending", order_key: ticketRef });
    expect(callback.payload).toMatchObject({
      action: "updateTicket",
      transactionType: "ticket",
      eventId,
      ticketId,
      actionPromise: update,
      status: "confirmed",
      txHash: null,
    });
  });

  it("finds an action only for its own organization, and nothing for a malformed id", async () => {
    const { eventRef } = await eventWithTicket();
    const [registered] = await record([{ kind: "updateEvent", requestedAs: "updateEvent", eventRef, eventIndex: 1n, ticketRef: null, onChain: null }]);
    expect(await store.findByOrganizationAndId(organizationId, registered.toUpperCase())).toMatchObject({ id: registered });
    expect(await store.findByOrganizationAndId(otherOrganizationId, registered)).toBeNull();
    expect(await store.findByOrganizationAndId(organizationId, "not-a-uuid")).toBeNull();
  });

  it("lists an event's own actions without its tickets', and names what an action acts on", async () => {
    const { eventRef, ticketRef, eventId, ticketId } = await eventWithTicket();
    const [eventAction, ticketAction] = await record([
      { kind: "updateEvent", requestedAs: "updateEvent", eventRef, eventIndex: 1n, ticketRef: null, onChain: null },
      { kind: "updateTicket", requestedAs: "updateTicket", eventRef, eventIndex: 1n, ticketRef, onChain: null },
    ]);
    expect((await store.listForEvent(eventRef)).map((action) => action.id)).toEqual([eventAction]);
    expect(await store.subjectIdsOf({ eventRef, ticketRef: null })).toEqual({ eventId, ticketId: null });
    expect(await store.subjectIdsOf({ eventRef, ticketRef })).toEqual({ eventId, ticketId });
    expect(ticketAction).not.toBe(eventAction);
  });

  it("counts only actions that have waited longer than the given age", async () => {
    const { eventRef, ticketRef } = await eventWithTicket();
    const waiting = {
      kind: "scanned",
      requestedAs: "scanned",
      eventRef,
      eventIndex: 1n,
      ticketRef,
      onChain: { action: "checkedIn", tokenId: 9n, orderTime: 0n },
    } as const;
    const before = await store.countWaitingOlderThan(60_000);
    const [old] = await record([waiting, waiting]);
    await db.dataSource.query(`UPDATE chain_actions SET created_at = now() - interval '2 minutes' WHERE id = $1`, [old]);
    expect(await store.countWaitingOlderThan(60_000)).toBe(before + 1);
  });
});

describe("the outbox writer", () => {
  it("writes one callback per final action with the chain's facts, once", async () => {
    const { eventRef, ticketRef, eventId, ticketId } = await eventWithTicket();
    const [sold] = await record([
      {
        kind: "sold",
        requestedAs: "sold",
        eventRef,
        eventIndex: 1n,
        ticketRef,
        onChain: { action: "sold", tokenId: 5n, ticketHash: "0x" + "cd".repeat(32), price: "1", orderTime: 1n },
      },
    ]);
    await db.dataSource.query(
      `UPDATE chain_actions SET status = 'confirmed', tx_hash = '0xfeed', block_number = 42, block_hash = '0x${"ab".repeat(32)}' WHERE id = $1`,
      [sold],
    );
    await db.dataSource.transaction(async (manager) => {
      await insertCallbacks(manager, [sold], 80002n, "0x00000000000000000000000000000000000000aa");
      await insertCallbacks(manager, [sold], 80002n, "0x00000000000000000000000000000000000000aa");
    });
    const rows = await db.dataSource.query<{ payload: Record<string, unknown> }[]>(`SELECT payload FROM callbacks WHERE action_id = $1`, [sold]);
    expect(rows).toHaveLength(1);
    expect(rows[0].payload).toMatchObject({
      txHash: "0xfeed",
      transactionType: "ticket",
      action: "sold",
      eventId,
      ticketId,
      actionPromise: sold,
      status: "confirmed",
      error: null,
      blockNumber: 42,
      blockHash: "0x" + "ab".repeat(32),
      chainId: 80002,
      registryAddress: "0x00000000000000000000000000000000000000aa",
    });
  });
});
