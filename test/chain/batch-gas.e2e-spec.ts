import { describe, expect, it } from "vitest";

import { actionPromises, allSettled, CALLBACK_URL, chainTransactions, mints, ticketView, tokenIds, txPromises, uid } from "../support/chain-e2e";
import { useChainApp } from "../support/chain-app";

/**
 * The writer sets each batch's gas limit from per-item figures. Batches of every shape must fit:
 * not only long runs of consecutive tickets of one event (where storage is shared and cheap), but a
 * lone sale, the first sales of many events, and check-ins spread over many tickets' storage.
 */

const chainApp = useChainApp();

/** Events registered (and confirmed) on their own, so that later batches carry only ticket actions. */
async function registeredEvents(count: number): Promise<string[]> {
  const eventIds = Array.from({ length: count }, () => uid("event"));
  const promises = actionPromises(
    await chainApp.api.post(
      "/stream",
      eventIds.map((eventId) => ({ action: "newEvent", data: { eventId, currency: "EUR", callbackUrl: CALLBACK_URL } })),
    ),
  );
  expect((await allSettled(chainApp.api, promises)).map((status) => status.status)).toEqual(Array(count).fill("confirmed"));
  return eventIds;
}

/** Every one of these actions confirmed in one transaction that did not revert, and used no more gas than its limit. */
async function expectConfirmedInOneTransaction(promises: string[]): Promise<void> {
  const statuses = await allSettled(chainApp.api, promises);
  expect(statuses.map((status) => [status.status, status.error])).toEqual(Array(promises.length).fill(["confirmed", null]));
  const hashes = [...new Set(statuses.map((status) => status.txHash))];
  expect(hashes).toHaveLength(1);
  const receipt = await chainApp.chain.provider.getTransactionReceipt(hashes[0]);
  expect(receipt?.status).toBe(1);
  const transactions = await chainTransactions(chainApp.testApp);
  expect(transactions.filter((tx) => tx.status === "reverted")).toEqual([]);
}

describe("the gas limit of a batch", () => {
  it("covers a lone first sale of an event", async () => {
    const [eventId] = await registeredEvents(1);
    const ticketId = uid("t");
    const promises = txPromises(await chainApp.api.post("/api/v1/sold", [{ eventId, ticketId, price: "10" }]));
    await expectConfirmedInOneTransaction(promises);
    const tokenId = (await tokenIds(chainApp.testApp, [ticketId])).get(ticketId)!;
    expect((await mints(chainApp.chain)).filter((mint) => mint.tokenId === tokenId)).toHaveLength(1);
  });

  it("covers the first sales of many events in one batch", async () => {
    const eventIds = await registeredEvents(12);
    const ticketIds = eventIds.map(() => uid("t"));
    const promises = txPromises(
      await chainApp.api.post(
        "/api/v1/sold",
        eventIds.map((eventId, index) => ({ eventId, ticketId: ticketIds[index], price: "10" })),
      ),
    );
    await expectConfirmedInOneTransaction(promises);
    const tokens = [...(await tokenIds(chainApp.testApp, ticketIds)).values()];
    expect((await mints(chainApp.chain)).filter((mint) => tokens.includes(mint.tokenId))).toHaveLength(12);
  });

  it("covers check-ins and invalidations of tickets far apart", async () => {
    // One ticket per event: every ticket's flags live in a storage slot of their own.
    const eventIds = await registeredEvents(40);
    const ticketIds = eventIds.map(() => uid("t"));
    const sold = txPromises(
      await chainApp.api.post(
        "/api/v1/sold",
        eventIds.map((eventId, index) => ({ eventId, ticketId: ticketIds[index], price: "1" })),
      ),
    );
    expect((await allSettled(chainApp.api, sold)).map((status) => status.status)).toEqual(Array(40).fill("confirmed"));

    const scanned = txPromises(
      await chainApp.api.post(
        "/api/v1/scanned",
        ticketIds.slice(0, 20).map((ticketId) => ({ ticketId })),
      ),
    );
    await expectConfirmedInOneTransaction(scanned);
    const invalidated = txPromises(
      await chainApp.api.post(
        "/api/v1/invalidated",
        ticketIds.slice(20).map((ticketId) => ({ ticketId })),
      ),
    );
    await expectConfirmedInOneTransaction(invalidated);

    const tokens = await tokenIds(chainApp.testApp, ticketIds);
    for (const [index, ticketId] of ticketIds.entries()) {
      const flags = await ticketView(chainApp.chain, tokens.get(ticketId)!);
      expect([flags.checkedIn, flags.invalidated]).toEqual(index < 20 ? [true, false] : [false, true]);
    }
  });
  it("covers sales with their metadata, the first of many events, and metadata updates of tickets far apart", async () => {
    // One ticket per event: every update reads a flag word of its own and signals alone (MetadataUpdate).
    const eventIds = await registeredEvents(12);
    const ticketIds = eventIds.map(() => uid("t"));
    const sold = txPromises(
      await chainApp.api.post(
        "/api/v1/sold",
        eventIds.map((eventId, index) => ({ eventId, ticketId: ticketIds[index], price: "1", uri: `https://img.example.com/${index}.png` })),
      ),
    );
    await expectConfirmedInOneTransaction(sold);
    const stream = await chainApp.api.post(
      "/stream",
      ticketIds.map((ticketId, index) => ({
        action: "updateTicket",
        data: { ticketId, uri: `https://img.example.com/${index}-b.png`, name: `Seat ${index}`, attributes: [{ traitType: "Seat", value: `${index}` }] },
      })),
    );
    await expectConfirmedInOneTransaction(actionPromises(stream));
  });
});
