import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { SendingStore } from "../../src/chain/writer/sending/sending.store";
import { OrganizationQueueStore } from "../../src/ledger/organization-queue.store";
import { fakeSignature, sale, SHARD_COUNT, WriterLedger } from "../support/writer-ledger";

let ledger: WriterLedger;
let sut: OrganizationQueueStore;

beforeAll(async () => {
  ledger = await WriterLedger.open();
  sut = new OrganizationQueueStore(ledger.dataSource);
});

afterAll(async () => {
  await ledger?.close();
});

/** A ledger of an organization of its own, its id, and `count` sales of it accepted. */
async function organizationWithSales(ticketeerId: string, count: number) {
  const organization = await ledger.otherOrganization(ticketeerId);
  const [{ id }] = await ledger.sql<{ id: string }>(`SELECT id FROM organizations WHERE ticketeer_id = $1`, [ticketeerId]);
  const event = await organization.ownShardEvent(count);
  const ids = await organization.accept(
    event,
    event.tickets.map((ticket) => ({ ticket, item: sale(ticket) })),
  );
  return { organization, organizationId: id, event, ids };
}

describe("OrganizationQueueStore", () => {
  it("counts an organization's actions from their acceptance until they are final, whichever statement moves them", async () => {
    const { organizationId, event, ids } = await organizationWithSales("queue-counts", 4);
    expect(await sut.queuedOf(organizationId)).toBe(4);

    // Signed (pending) and taken back (waiting_funds, waiting_broadcast): still not on chain.
    const signer = await ledger.signerAt(0n);
    const sending = new SendingStore(ledger.dataSource);
    const waiting = await sending.waitingActions(SHARD_COUNT, Number(event.eventIndex), 10);
    await sending.commitNewTransaction(signer, waiting.slice(0, 2), async (nonce) => fakeSignature(signer, nonce, 2));
    await ledger.sql(`UPDATE chain_actions SET status = 'waiting_funds' WHERE id = $1`, [ids[3]]);
    expect(await sut.queuedOf(organizationId)).toBe(4);

    await ledger.sql(`UPDATE chain_actions SET status = 'confirmed' WHERE id = ANY($1::uuid[])`, [ids.slice(0, 2)]);
    // A cancellation, as the ledger's cancel makes it: any statement that makes actions final counts.
    await ledger.sql(`UPDATE chain_actions SET status = 'cancelled' WHERE id = $1`, [ids[2]]);
    expect(await sut.queuedOf(organizationId)).toBe(1);
  });

  it("reserves the room left under the limit, counting the rooms other acceptances hold, and gives it back", async () => {
    const { organizationId } = await organizationWithSales("queue-room", 3);

    const first = await sut.reserve(organizationId, 5, 10);
    const second = await sut.reserve(organizationId, 5, 10);
    const third = await sut.reserve(organizationId, 5, 10);

    expect([first.room, second.room, third.room]).toEqual([5, 2, 0]);
    expect(third.reservationId).toBeNull();
    await sut.release(first);
    expect((await sut.reserve(organizationId, 5, 10)).room).toBe(5);
  });

  it("ends a reservation in the acceptance's transaction: the accepted actions take its place in the count", async () => {
    const { organization, organizationId, event } = await organizationWithSales("queue-settle", 0);
    const more = await organization.event(2, event.eventIndex + BigInt(SHARD_COUNT));
    const room = await sut.reserve(organizationId, 2, 2);

    await ledger.dataSource.transaction(async (manager) => {
      await organization.accept(
        more,
        more.tickets.map((ticket) => ({ ticket, item: sale(ticket) })),
        "request-1",
        manager,
      );
      await sut.settle(manager, room);
    });

    expect(await sut.queuedOf(organizationId)).toBe(2);
    expect((await sut.reserve(organizationId, 1, 2)).room).toBe(0);
  });

  it("never grants more than the limit to reservations taken at the same moment", async () => {
    const { organizationId } = await organizationWithSales("queue-race", 0);

    const rooms = await Promise.all(Array.from({ length: 12 }, () => sut.reserve(organizationId, 3, 20)));

    expect(rooms.reduce((sum, room) => sum + room.room, 0)).toBe(20);
  });
});
