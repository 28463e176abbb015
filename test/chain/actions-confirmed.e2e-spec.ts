import { AbiCoder, sha256, toUtf8Bytes, Wallet } from "ethers";
import { describe, expect, it } from "vitest";

import {
  actionPromises,
  allSettled,
  CALLBACK_URL,
  callbackRows,
  eventIndexOf,
  sqlOf,
  ticketView,
  tokenIds,
  txPromises,
  uid,
  WALLET,
} from "../support/chain-e2e";
import { useChainApp } from "../support/chain-app";

/**
 * Every kind of action, sent through the per-action endpoints and through /stream, ends confirmed,
 * and the chain itself shows it: read back with plain ERC-721 and registry calls and logs.
 * The service writes with two signers.
 */

// Two signers: events are spread over both, each event's actions through one.
const chainApp = useChainApp({ signers: 2 });

const eventKeyOf = (eventId: string) => sha256(AbiCoder.defaultAbiCoder().encode(["string", "string"], [chainApp.ticketeerId, eventId]));
const ticketHashOf = (ticketId: string) => sha256(toUtf8Bytes(ticketId));

interface Expected {
  promise: string;
  action: string;
  eventId: string;
  ticketId?: string;
}

/** One callback row per action, carrying the interface's fields and the chain facts of its action. */
async function expectCallbacks(expected: Expected[]): Promise<void> {
  const rows = await callbackRows(
    chainApp.testApp,
    expected.map((entry) => entry.promise),
  );
  expect(rows).toHaveLength(expected.length);
  const byAction = new Map(rows.map((row) => [row.action_id, row.payload]));
  const tokens = await tokenIds(
    chainApp.testApp,
    expected.flatMap((entry) => (entry.ticketId ? [entry.ticketId] : [])),
  );
  for (const entry of expected) {
    const status = (await chainApp.api.get(`/api/v1/actions/${entry.promise}`)).body;
    const payload = byAction.get(entry.promise);
    expect(payload, `callback of ${entry.action} ${entry.promise}`).toMatchObject({
      txHash: status.txHash,
      transactionType: entry.ticketId ? "ticket" : "event",
      action: entry.action,
      eventId: entry.eventId,
      ticketId: entry.ticketId ?? null,
      actionPromise: entry.promise,
      status: "confirmed",
      error: null,
      blockNumber: status.blockNumber,
      blockHash: status.blockHash,
      tokenId: entry.ticketId ? tokens.get(entry.ticketId)!.toString() : null,
      chainId: chainApp.chain.chainId,
      registryAddress: chainApp.chain.registryAddress,
    });
    expect(payload!.txHash).toMatch(/^0x[0-9a-f]{64}$/);
    expect(payload!.blockNumber).toBeGreaterThan(0);
    expect(payload!.blockHash).toMatch(/^0x[0-9a-f]{64}$/);
  }
}

async function holderInLedger(ticketId: string): Promise<string | null> {
  const [row] = await sqlOf(chainApp.testApp)<{ holder: string | null }>(`SELECT holder FROM tickets WHERE ticket_id = $1`, [ticketId]);
  return row.holder;
}

describe("per-action endpoints", () => {
  it("confirms events, sold, resold, scanned, checkedin and invalidated, and the chain mirrors each", async () => {
    const eventId = uid("event");
    const [sold1, sold2, sold3, sold4] = [uid("t"), uid("t"), uid("t"), uid("t")];

    const created = await chainApp.api.post("/api/v1/events", {
      eventId,
      ticketeerId: chainApp.ticketeerId,
      eventName: "Concert in the Park",
      currency: "EUR",
      callbackUrl: CALLBACK_URL,
      shopUrl: "https://shop.example.com/concert",
      imageUrl: "https://img.example.com/concert.png",
      latitude: 52.3731,
      longitude: -4.8922,
      startTime: 1_900_000_000,
      endTime: 1_900_010_800,
    });
    expect(created.status).toBe(200);
    const registered = created.body.txPromise as string;

    const sold = txPromises(
      await chainApp.api.post("/api/v1/sold", [
        { eventId, ticketId: sold1, price: "12.50", orderTime: 1_750_000_001 },
        { eventId, ticketId: sold2, price: "0.000001", orderTime: 1_750_000_002 },
        { eventId, ticketId: sold3, price: "7", orderTime: 1_750_000_003 },
        { eventId, ticketId: sold4, price: "99.99", orderTime: 1_750_000_004 },
      ]),
    );
    const [resoldOnce] = txPromises(await chainApp.api.post("/api/v1/resold", [{ ticketId: sold1, price: "15.00", orderTime: 1_750_000_100 }]));
    const [resoldTwice] = txPromises(await chainApp.api.post("/api/v1/resold", [{ ticketId: sold1, price: "20.25", orderTime: 1_750_000_200 }]));
    const [scanned] = txPromises(await chainApp.api.post("/api/v1/scanned", [{ ticketId: sold2, orderTime: 1_750_000_300 }]));
    const [checkedIn] = txPromises(await chainApp.api.post("/api/v1/checkedin", [{ ticketId: sold3, orderTime: 1_750_000_400 }]));
    const [invalidated] = txPromises(await chainApp.api.post("/api/v1/invalidated", [{ ticketId: sold4, orderTime: 1_750_000_500 }]));

    const all = [registered, ...sold, resoldOnce, resoldTwice, scanned, checkedIn, invalidated];
    const statuses = await allSettled(chainApp.api, all);
    expect(statuses.map((status) => [status.action, status.status, status.error])).toEqual([
      ["newEvent", "confirmed", null],
      ["sold", "confirmed", null],
      ["sold", "confirmed", null],
      ["sold", "confirmed", null],
      ["sold", "confirmed", null],
      ["resold", "confirmed", null],
      ["resold", "confirmed", null],
      ["scanned", "confirmed", null],
      ["scanned", "confirmed", null],
      ["invalidated", "confirmed", null],
    ]);
    for (const status of statuses) {
      const receipt = await chainApp.chain.provider.getTransactionReceipt(status.txHash);
      expect(receipt?.status, `receipt of ${status.action}`).toBe(1);
      expect(receipt?.blockNumber).toBe(status.blockNumber);
      // A verifiable receipt: the block hash the service reports is the chain's block at that height.
      expect(status.blockHash).toBe(receipt?.blockHash);
      expect(status.blockHash).toBe((await chainApp.chain.provider.getBlock(status.blockNumber))?.hash);
    }

    // The event: registered once with its on-chain fields, four tickets sold to its custody address.
    const eventIndex = await eventIndexOf(chainApp.testApp, eventId);
    const custody = await chainApp.chain.registry.custodyAddress(eventIndex);
    const [registration, ...moreRegistrations] = await chainApp.chain.registry.queryFilter(chainApp.chain.registry.filters.EventRegistered(eventIndex));
    expect(moreRegistrations).toHaveLength(0);
    expect(registration.transactionHash).toBe(statuses[0].txHash);
    expect(registration.args.eventKey).toBe(eventKeyOf(eventId));
    expect(registration.args.ticketeer).toBe(sha256(toUtf8Bytes(chainApp.ticketeerId)));
    expect(registration.args.custody).toBe(custody);
    const details = registration.args.details;
    expect([details.name, details.currency, details.shopUrl, details.imageUrl]).toEqual([
      "Concert in the Park",
      "EUR",
      "https://shop.example.com/concert",
      "https://img.example.com/concert.png",
    ]);
    expect([details.latitude, details.longitude, details.startTime, details.endTime]).toEqual([523_731_000n, -48_922_000n, 1_900_000_000n, 1_900_010_800n]);
    const record = await chainApp.chain.registry.eventRecord(eventIndex);
    expect(record.eventKey).toBe(eventKeyOf(eventId));
    expect(record.ticketsSold).toBe(4n);
    expect(record.ticketsInCustody).toBe(3n);

    // Each sale: minted once, with sha256(ticketId), its price in 6-decimal units and its orderTime.
    const tokens = await tokenIds(chainApp.testApp, [sold1, sold2, sold3, sold4]);
    const sales: [string, bigint, bigint][] = [
      [sold1, 12_500_000n, 1_750_000_001n],
      [sold2, 1n, 1_750_000_002n],
      [sold3, 7_000_000n, 1_750_000_003n],
      [sold4, 99_990_000n, 1_750_000_004n],
    ];
    for (const [ticketId, price, orderTime] of sales) {
      const tokenId = tokens.get(ticketId)!;
      expect(tokenId >> 64n).toBe(eventIndex);
      const logs = await chainApp.chain.registry.queryFilter(chainApp.chain.registry.filters.TicketSold(tokenId));
      expect(logs.map((log) => [log.args.ticketHash, log.args.price, log.args.orderTime])).toEqual([[ticketHashOf(ticketId), price, orderTime]]);
    }

    // Two resales: the token moved to the holder address of its second resale.
    const token1 = tokens.get(sold1)!;
    const holder = await chainApp.chain.registry.holderAddress(token1, 2);
    expect(await chainApp.chain.registry.ownerOf(token1)).toBe(holder);
    expect(holder).not.toBe(custody);
    const resales = await chainApp.chain.registry.queryFilter(chainApp.chain.registry.filters.TicketResold(token1));
    expect(resales.map((log) => [log.args.resales, log.args.price, log.args.orderTime])).toEqual([
      [1n, 15_000_000n, 1_750_000_100n],
      [2n, 20_250_000n, 1_750_000_200n],
    ]);
    expect(await ticketView(chainApp.chain, token1)).toMatchObject({ holder, resales: 2n, checkedIn: false, invalidated: false, claimed: false });
    expect(await holderInLedger(sold1)).toBe(holder);

    // The others stay in custody with their flags.
    for (const [ticketId, flags] of [
      [sold2, { checkedIn: true, invalidated: false, claimed: false }],
      [sold3, { checkedIn: true, invalidated: false, claimed: false }],
      [sold4, { checkedIn: false, invalidated: true, claimed: false }],
    ] as const) {
      const tokenId = tokens.get(ticketId)!;
      expect(await chainApp.chain.registry.ownerOf(tokenId)).toBe(custody);
      expect(await ticketView(chainApp.chain, tokenId)).toMatchObject({
        ...flags,
        holder: custody,
        resales: 0n,
        eventIndex,
        serial: tokenId & ((1n << 64n) - 1n),
      });
      expect(await holderInLedger(ticketId)).toBe(custody);
    }

    // The read endpoints show the confirmed chain facts.
    const views = await Promise.all([sold1, sold2, sold3, sold4].map(async (ticketId) => (await chainApp.api.get(`/api/v1/tickets/${ticketId}`)).body));
    expect(views.map((view) => view.chain)).toEqual([
      {
        tokenId: token1.toString(),
        eventIndex: Number(eventIndex),
        serial: 1,
        minted: true,
        checkedIn: false,
        invalidated: false,
        claimed: false,
        eventCancelled: false,
      },
      {
        tokenId: tokens.get(sold2)!.toString(),
        eventIndex: Number(eventIndex),
        serial: 2,
        minted: true,
        checkedIn: true,
        invalidated: false,
        claimed: false,
        eventCancelled: false,
      },
      {
        tokenId: tokens.get(sold3)!.toString(),
        eventIndex: Number(eventIndex),
        serial: 3,
        minted: true,
        checkedIn: true,
        invalidated: false,
        claimed: false,
        eventCancelled: false,
      },
      {
        tokenId: tokens.get(sold4)!.toString(),
        eventIndex: Number(eventIndex),
        serial: 4,
        minted: true,
        checkedIn: false,
        invalidated: true,
        claimed: false,
        eventCancelled: false,
      },
    ]);
    expect(views[0].actions.map((action: any) => [action.action, action.status, action.txHash])).toEqual([
      ["sold", "confirmed", statuses[1].txHash],
      ["resold", "confirmed", statuses[5].txHash],
      ["resold", "confirmed", statuses[6].txHash],
    ]);
    const eventView = (await chainApp.api.get(`/api/v1/events/${eventId}`)).body;
    expect(eventView.chain).toEqual({ eventIndex: Number(eventIndex), eventKey: eventKeyOf(eventId), registered: true, cancelled: false });

    // The event's cancellation, last: confirmed, one flag of the event that every one of its tickets reads.
    const cancellation = await chainApp.api.post(`/api/v1/events/${eventId}/cancel`, undefined);
    expect(cancellation.status).toBe(200);
    const [cancelled] = await allSettled(chainApp.api, [cancellation.body.txPromise]);
    expect(cancelled).toMatchObject({ action: "cancelledEvent", status: "confirmed" });
    await expectCallbacks([{ promise: cancellation.body.txPromise, action: "cancelledEvent", eventId }]);
    expect((await chainApp.chain.registry.eventRecord(eventIndex)).cancelled).toBe(true);
    const cancelledViews = await chainApp.chain.registry.tickets([token1, tokens.get(sold4)!]);
    expect(cancelledViews.map((view) => [view.eventCancelled, view.invalidated])).toEqual([
      [true, false],
      [true, true],
    ]);
    expect((await chainApp.api.get(`/api/v1/tickets/${sold1}`)).body).toMatchObject({ state: "event_cancelled", chain: { eventCancelled: true } });

    await expectCallbacks([
      { promise: registered, action: "newEvent", eventId },
      ...sold.map((promise, index) => ({ promise, action: "sold", eventId, ticketId: [sold1, sold2, sold3, sold4][index] })),
      { promise: resoldOnce, action: "resold", eventId, ticketId: sold1 },
      { promise: resoldTwice, action: "resold", eventId, ticketId: sold1 },
      { promise: scanned, action: "scanned", eventId, ticketId: sold2 },
      { promise: checkedIn, action: "scanned", eventId, ticketId: sold3 },
      { promise: invalidated, action: "invalidated", eventId, ticketId: sold4 },
    ]);
  });
});

describe("/stream", () => {
  it("confirms every stream action, updateTicket needs no broadcast, and the chain mirrors each", async () => {
    const eventId = uid("event");
    const [a, b, c, d] = [uid("s"), uid("s"), uid("s"), uid("s")];
    const answer = await chainApp.api.post("/stream", [
      { action: "newEvent", data: { eventId, eventName: "Before", currency: "USD", callbackUrl: CALLBACK_URL, latitude: 1.5, longitude: 2.25 } },
      { action: "updateEvent", data: { eventId, eventName: "After", imageUrl: "https://img.example.com/after.png", startTime: 1_800_000_000 } },
      { action: "soldTicket", data: { eventId, ticketId: a, price: "10", orderTime: 1_760_000_001 } },
      { action: "soldTicket", data: { eventId, ticketId: b, price: "11.5", orderTime: 1_760_000_002 } },
      { action: "soldTicket", data: { eventId, ticketId: c, price: "12.125", orderTime: 1_760_000_003 } },
      { action: "soldTicket", data: { eventId, ticketId: d, price: "0", orderTime: 1_760_000_004 } },
      { action: "updateTicket", data: { ticketId: a, uri: "https://meta.example.com/a.json" } },
      { action: "resoldTicket", data: { ticketId: a, price: "30.000001", orderTime: 1_760_000_100 } },
      { action: "scannedTicket", data: { ticketId: b, orderTime: 1_760_000_200 } },
      { action: "checkedInTicket", data: { ticketId: c, orderTime: 1_760_000_300 } },
      { action: "claimedTicket", data: { ticketId: c, to: WALLET } },
      { action: "invalidatedTicket", data: { ticketId: d, orderTime: 1_760_000_400 } },
    ]);
    const promises = actionPromises(answer);
    const statuses = await allSettled(chainApp.api, promises);
    expect(statuses.map((status) => [status.action, status.requestedAs, status.status, status.error])).toEqual([
      ["newEvent", "newEvent", "confirmed", null],
      ["updateEvent", "updateEvent", "confirmed", null],
      ["sold", "soldTicket", "confirmed", null],
      ["sold", "soldTicket", "confirmed", null],
      ["sold", "soldTicket", "confirmed", null],
      ["sold", "soldTicket", "confirmed", null],
      ["updateTicket", "updateTicket", "confirmed", null],
      ["resold", "resoldTicket", "confirmed", null],
      ["scanned", "scannedTicket", "confirmed", null],
      ["scanned", "checkedInTicket", "confirmed", null],
      ["claimed", "claimedTicket", "confirmed", null],
      ["invalidated", "invalidatedTicket", "confirmed", null],
    ]);
    expect(statuses[6].txHash).toMatch(/^0x[0-9a-f]{64}$/);

    const eventIndex = await eventIndexOf(chainApp.testApp, eventId);
    const custody = await chainApp.chain.registry.custodyAddress(eventIndex);
    const [registration] = await chainApp.chain.registry.queryFilter(chainApp.chain.registry.filters.EventRegistered(eventIndex));
    expect(registration.args.details.name).toBe("Before");
    expect([registration.args.details.currency, registration.args.details.latitude, registration.args.details.longitude]).toEqual([
      "USD",
      15_000_000n,
      22_500_000n,
    ]);
    const updates = await chainApp.chain.registry.queryFilter(chainApp.chain.registry.filters.EventUpdated(eventIndex));
    expect(updates).toHaveLength(1);
    expect(updates[0].transactionHash).toBe(statuses[1].txHash);
    expect(updates[0].args.eventKey).toBe(eventKeyOf(eventId));
    const updated = updates[0].args.details;
    expect([updated.name, updated.currency, updated.imageUrl, updated.latitude, updated.startTime]).toEqual([
      "After",
      "USD",
      "https://img.example.com/after.png",
      15_000_000n,
      1_800_000_000n,
    ]);

    const tokens = await tokenIds(chainApp.testApp, [a, b, c, d]);
    for (const [ticketId, price, orderTime] of [
      [a, 10_000_000n, 1_760_000_001n],
      [b, 11_500_000n, 1_760_000_002n],
      [c, 12_125_000n, 1_760_000_003n],
      [d, 0n, 1_760_000_004n],
    ] as const) {
      const logs = await chainApp.chain.registry.queryFilter(chainApp.chain.registry.filters.TicketSold(tokens.get(ticketId)));
      expect(logs.map((log) => [log.args.ticketHash, log.args.price, log.args.orderTime])).toEqual([[ticketHashOf(ticketId), price, orderTime]]);
    }

    // a: resold once; b: checked in; c: checked in and claimed to the wallet; d: invalidated.
    const tokenA = tokens.get(a)!;
    const holderA = await chainApp.chain.registry.holderAddress(tokenA, 1);
    expect(await chainApp.chain.registry.ownerOf(tokenA)).toBe(holderA);
    const resales = await chainApp.chain.registry.queryFilter(chainApp.chain.registry.filters.TicketResold(tokenA));
    expect(resales.map((log) => [log.args.resales, log.args.price, log.args.orderTime])).toEqual([[1n, 30_000_001n, 1_760_000_100n]]);
    const tokenC = tokens.get(c)!;
    expect(await chainApp.chain.registry.ownerOf(tokenC)).toBe(WALLET);
    expect(await chainApp.chain.registry.balanceOf(WALLET)).toBeGreaterThanOrEqual(1n);
    expect(await chainApp.chain.registry.ownerOf(tokens.get(b)!)).toBe(custody);
    expect(await chainApp.chain.registry.ownerOf(tokens.get(d)!)).toBe(custody);
    expect(await ticketView(chainApp.chain, tokenA)).toMatchObject({ holder: holderA, resales: 1n, checkedIn: false, claimed: false, invalidated: false });
    expect(await ticketView(chainApp.chain, tokens.get(b)!)).toMatchObject({ holder: custody, checkedIn: true, claimed: false, invalidated: false });
    expect(await ticketView(chainApp.chain, tokenC)).toMatchObject({ holder: WALLET, checkedIn: true, claimed: true, invalidated: false });
    expect(await ticketView(chainApp.chain, tokens.get(d)!)).toMatchObject({ holder: custody, checkedIn: false, claimed: false, invalidated: true });
    expect((await chainApp.chain.registry.eventRecord(eventIndex)).ticketsSold).toBe(4n);

    expect(await holderInLedger(a)).toBe(holderA);
    expect(await holderInLedger(b)).toBe(custody);
    expect(await holderInLedger(c)).toBe(WALLET);
    expect(await holderInLedger(d)).toBe(custody);

    const viewC = (await chainApp.api.get(`/api/v1/tickets/${c}`)).body;
    expect(viewC).toMatchObject({
      state: "claimed",
      claimedTo: WALLET,
      chain: { tokenId: tokenC.toString(), minted: true, checkedIn: true, claimed: true, invalidated: false },
    });
    const viewA = (await chainApp.api.get(`/api/v1/tickets/${a}`)).body;
    expect(viewA).toMatchObject({ uri: "https://meta.example.com/a.json", resales: 1, chain: { minted: true, checkedIn: false, claimed: false } });
    expect((await chainApp.api.get(`/api/v1/tickets/${d}`)).body.chain).toMatchObject({ minted: true, invalidated: true });
    expect((await chainApp.api.get(`/api/v1/events/${eventId}`)).body).toMatchObject({ eventName: "After", chain: { registered: true } });

    await expectCallbacks([
      { promise: promises[0], action: "newEvent", eventId },
      { promise: promises[1], action: "updateEvent", eventId },
      { promise: promises[2], action: "sold", eventId, ticketId: a },
      { promise: promises[3], action: "sold", eventId, ticketId: b },
      { promise: promises[4], action: "sold", eventId, ticketId: c },
      { promise: promises[5], action: "sold", eventId, ticketId: d },
      { promise: promises[7], action: "resold", eventId, ticketId: a },
      { promise: promises[8], action: "scanned", eventId, ticketId: b },
      { promise: promises[9], action: "scanned", eventId, ticketId: c },
      { promise: promises[10], action: "claimed", eventId, ticketId: c },
      { promise: promises[11], action: "invalidated", eventId, ticketId: d },
    ]);
  });
});

describe("two signers", () => {
  it("send each event's actions through one signer, spread events over both, and keep each signer's nonces gapless", async () => {
    const eventIds = Array.from({ length: 4 }, () => uid("event"));
    const promises = actionPromises(
      await chainApp.api.post(
        "/stream",
        eventIds.flatMap((eventId) => [
          { action: "newEvent", data: { eventId, currency: "EUR", callbackUrl: CALLBACK_URL } },
          { action: "soldTicket", data: { eventId, ticketId: uid("t"), price: "1" } },
          { action: "soldTicket", data: { eventId, ticketId: uid("t"), price: "2" } },
        ]),
      ),
    );
    const statuses = await allSettled(chainApp.api, promises);
    expect(statuses.map((status) => status.status)).toEqual(Array(12).fill("confirmed"));

    const sql = sqlOf(chainApp.testApp);
    const rows = await sql<{ event_id: string; signer: string }>(
      `SELECT DISTINCT e.event_id, t.signer FROM chain_actions a JOIN events e ON e.id = a.event_ref JOIN chain_transactions t ON t.tx_hash = a.tx_hash WHERE e.event_id = ANY($1::text[])`,
      [eventIds],
    );
    const signersByEvent = new Map<string, string[]>();
    for (const row of rows) signersByEvent.set(row.event_id, [...(signersByEvent.get(row.event_id) ?? []), row.signer]);
    expect([...signersByEvent.values()].map((signers) => signers.length)).toEqual([1, 1, 1, 1]);
    const signers = chainApp.chain.signerKeys.map((key) => new Wallet(key).address);
    expect(new Set(rows.map((row) => row.signer))).toEqual(new Set(signers));

    // Every nonce of each signer used once, in order, and the chain agrees on how many.
    for (const signer of signers) {
      const nonces = await sql<{ nonce: string; status: string }>(
        `SELECT nonce, status FROM chain_transactions WHERE signer = $1 AND status <> 'replaced' ORDER BY nonce`,
        [signer],
      );
      expect(nonces.map((row) => Number(row.nonce))).toEqual(nonces.map((_, index) => index));
      expect(nonces.every((row) => row.status === "confirmed")).toBe(true);
      expect(await chainApp.chain.provider.getTransactionCount(signer)).toBe(nonces.length);
    }
  });
});
