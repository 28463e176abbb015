import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { uuidv7 } from "../../src/common/uuid-v7";
import { copyRows, INSERT_MAX_ROWS } from "../../src/database/copy-rows";
import { ActionRecorder } from "../../src/ledger/action-recorder";
import { registryItemFromJson, tokenIdOf } from "../../src/registry";
import { TicketEntity } from "../../src/tickets/entities/ticket.entity";
import { TicketsStore } from "../../src/tickets/tickets.store";
import { openStoreDatabase, type StoreDatabase } from "../support/store-database";

let db: StoreDatabase;
let organizationId: string;

beforeAll(async () => {
  db = await openStoreDatabase();
  organizationId = await db.organization("ticketeer-copy");
});

afterAll(async () => {
  await db?.close();
});

async function newEvent(): Promise<string> {
  const eventRef = uuidv7();
  await db.dataSource.query(
    `INSERT INTO events (id, organization_id, event_id, currency, callback_url) VALUES ($1, $2, $3, 'EUR', 'https://integrator.example.com/cb')`,
    [eventRef, organizationId, `event-${eventRef}`],
  );
  return eventRef;
}

const FIELDS = [
  "id",
  "organizationId",
  "eventRef",
  "ticketId",
  "serial",
  "tokenId",
  "price",
  "uri",
  "name",
  "description",
  "animationUrl",
  "attributes",
  "orderTime",
  "checkedIn",
  "invalidated",
  "claimed",
  "claimedTo",
  "resales",
] as const;
/** Each test's tickets in an event index of their own: tokenIds are unique across the table. */
let eventIndex = 2n ** 40n - 100n;

/** Tickets whose text needs COPY's escapes, a NULL and a tokenId past 2^64. */
function tickets(eventRef: string, count: number): TicketEntity[] {
  const index = eventIndex++;
  return Array.from({ length: count }, (_, position) =>
    Object.assign(new TicketEntity(), {
      id: uuidv7(),
      organizationId,
      eventRef,
      ticketId: `t\t${position}\\"{x}, ${uuidv7()}`,
      serial: BigInt(position + 1),
      tokenId: tokenIdOf(index, BigInt(position + 1)),
      price: "49.95",
      uri: position % 2 === 0 ? "ipfs://a\nb\r\\N" : "",
      name: position % 2 === 0 ? 'a\t"b"\\N' : "",
      description: "",
      animationUrl: "",
      attributes: position % 2 === 0 ? [{ traitType: 'Seat\t"1"', value: "\\N\n{x}" }] : [],
      orderTime: 18_446_744_073_709_551_615n,
      checkedIn: position % 3 === 0,
      invalidated: false,
      claimed: false,
      claimedTo: position % 3 === 0 ? null : "NULL",
      resales: position,
    }),
  );
}

// Both ways rows are written: one INSERT up to INSERT_MAX_ROWS rows, COPY past it.
describe.each([
  ["one INSERT", 7],
  ["COPY", INSERT_MAX_ROWS + 3],
])("rows written with %s", (_path, count) => {
  it("stores every value exactly, in the order given", async () => {
    const eventRef = await newEvent();
    const written = tickets(eventRef, count);
    const ids = await db.dataSource.transaction(async (manager) => {
      await new TicketsStore(manager).insertNew(written);
      const recorder = new ActionRecorder(manager, organizationId, "request-\t1");
      const recorded = written.map((ticket) =>
        recorder.record({
          kind: "sold",
          requestedAs: "soldTicket",
          eventRef,
          eventIndex: 2n ** 40n - 1n,
          ticketRef: ticket.id,
          onChain: { action: "sold", tokenId: ticket.tokenId, ticketHash: "0x" + "ab".repeat(32), price: ticket.price, orderTime: ticket.orderTime },
        }),
      );
      await recorder.flush();
      return recorded;
    });
    const stored = await db.dataSource.getRepository(TicketEntity).find({ where: { eventRef } });
    const byId = new Map(stored.map((ticket) => [ticket.id, ticket]));
    const fields = (ticket: TicketEntity | undefined) => FIELDS.map((field) => ticket?.[field]);
    for (const ticket of written) expect(fields(byId.get(ticket.id))).toEqual(fields(ticket));
    const actions = await db.dataSource.query<{ id: string; ticket_ref: string; request_id: string; payload: Record<string, unknown>; shard_key: string }[]>(
      `SELECT id, ticket_ref, request_id, payload, shard_key::text FROM chain_actions WHERE event_ref = $1 ORDER BY seq`,
      [eventRef],
    );
    expect(actions.map((action) => action.id)).toEqual(ids);
    expect(actions.map((action) => action.ticket_ref)).toEqual(written.map((ticket) => ticket.id));
    expect(actions[count - 1].request_id).toBe("request-\t1");
    expect(actions[count - 1].shard_key).toBe(String(2n ** 40n - 1n));
    expect(registryItemFromJson(actions[count - 1].payload)).toMatchObject({
      action: "sold",
      tokenId: written[count - 1].tokenId,
      orderTime: 18_446_744_073_709_551_615n,
    });
  });

  it("writes nothing when a row in the middle is a duplicate: the transaction fails with a unique violation", async () => {
    const eventRef = await newEvent();
    const written = tickets(eventRef, count);
    written[Math.floor(count / 2)].ticketId = written[1].ticketId;
    const failure = await db.dataSource
      .transaction((manager) => new TicketsStore(manager).insertNew(written))
      .then(
        () => undefined,
        (error: unknown) => error as { code?: string; driverError?: { code?: string } },
      );
    expect(failure?.driverError?.code ?? failure?.code).toBe("23505");
    expect(await db.dataSource.getRepository(TicketEntity).countBy({ eventRef })).toBe(0);
  });
});

it("names a column the table does not have", async () => {
  await expect(db.dataSource.transaction((manager) => copyRows(manager, "tickets", ["id", "no_such_column"], [[uuidv7(), 1]]))).rejects.toThrow(
    "tickets has no column no_such_column",
  );
});
