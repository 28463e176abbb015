import { parseEther, toQuantity, Wallet, ZeroAddress } from "ethers";
import { describe, expect, it } from "vitest";

import { eventKeyOf } from "../../src/registry";
import { apiClient } from "../support/api-client";
import { useChainApp } from "../support/chain-app";
import {
  actionPromises,
  actionRows,
  callbackRows,
  eventIndexOf,
  registeredEvent,
  settled,
  sqlOf,
  tokenIds,
  txPromises,
  uid,
  waitForLedgerStatus,
} from "../support/chain-e2e";
import { type HeldSigner, startHeldSigner } from "../support/held-signer";
import { eventually } from "../support/test-chain";

/**
 * An event cancelled in one action, against the real app, PostgreSQL, Redis and a chain: one write on
 * chain whatever the number of its tickets (5,000 here, its gas the same as with one), after which the
 * registry's tickets view, the token metadata, /verify and the ticket views show every ticket cancelled,
 * and the event's further sales, resales, check-ins, invalidations and claims are refused. The signer is
 * remote (a stand-in that can hold a signature), so that a test acts while actions wait for the chain.
 */

const TICKETS = 5_000;

let signer: HeldSigner;

const chainApp = useChainApp({
  receiver: true,
  env: async (chain, defer) => {
    signer = await startHeldSigner(chain.signerKeys);
    defer(() => signer.close());
    const addresses = chain.signerKeys.map((key) => new Wallet(key).address);
    return { SIGNER_PRIVATE_KEYS: "", SIGNER_REMOTE_URL: signer.url, SIGNER_ADDRESSES: addresses.join(","), SIGNER_FUNDS_CHECK_MS: "500" };
  },
});

const api = () => chainApp.api;
const cancelEvent = (eventId: string) => api().post(`/api/v1/events/${encodeURIComponent(eventId)}/cancel`, undefined);
const registry = () => chainApp.chain.registry;

/** An event whose callbacks go to the test's receiver, registered and confirmed. */
async function eventWithReceiver(path: string): Promise<string> {
  const eventId = uid("event");
  const created = await api().post("/api/v1/events", {
    eventId,
    ticketeerId: chainApp.ticketeerId,
    eventName: "Open Air",
    currency: "EUR",
    callbackUrl: chainApp.receiver.url(path),
  });
  expect((await settled(api(), created.body.txPromise)).status).toBe("confirmed");
  return eventId;
}

/** Sells `count` tickets of the event in one /stream and waits until every sale is confirmed; their ticketIds. */
async function soldTickets(eventId: string, count: number): Promise<string[]> {
  const ticketIds = Array.from({ length: count }, (_, i) => uid(`t${i}`));
  const promises = actionPromises(
    await api().post(
      "/stream",
      ticketIds.map((ticketId) => ({ action: "soldTicket", data: { eventId, ticketId, price: "25.00" } })),
    ),
  );
  await waitForLedgerStatus(chainApp.testApp, promises, "confirmed", 240_000);
  return ticketIds;
}

/** The receipt of the transaction that carried an action, and the registry's logs in it, decoded. */
async function receiptOf(promise: string) {
  const { txHash } = await settled(api(), promise);
  const receipt = (await chainApp.chain.provider.getTransactionReceipt(txHash))!;
  const address = chainApp.chain.registryAddress.toLowerCase();
  const logs = receipt.logs
    .filter((log) => log.address.toLowerCase() === address)
    .map((log) => ({ log, parsed: registry().interface.parseLog(log)! }))
    .filter((entry) => entry.parsed !== null);
  return { receipt, logs };
}

async function fetchJson(url: string) {
  const response = await fetch(url);
  return { status: response.status, body: await response.json() };
}

const stateAttribute = (metadata: { attributes: { trait_type: string; value: unknown }[] }) =>
  metadata.attributes.find((attribute) => attribute.trait_type === "State")?.value;

describe("an event cancelled with 5,000 tickets sold", () => {
  it("is one write on chain whose gas does not grow with its tickets, and every ticket reads as cancelled everywhere", async () => {
    // What the deploy script sets from PUBLIC_BASE_URL: here the service's address is known only now.
    await (await registry().setBaseURI(`${chainApp.testApp.baseUrl}/tokens/`)).wait();
    const holder = new Wallet(Wallet.createRandom().privateKey, chainApp.chain.provider);
    await chainApp.chain.send("hardhat_setBalance", [holder.address, toQuantity(parseEther("1"))]);

    const eventId = await eventWithReceiver("/cancelled");
    const ticketIds = await soldTickets(eventId, TICKETS);
    const [claimed, resold, scanned, invalidated] = ticketIds;
    const before = actionPromises(
      await api().post("/stream", [
        { action: "scannedTicket", data: { ticketId: claimed } },
        { action: "claimedTicket", data: { ticketId: claimed, to: holder.address } },
        { action: "resoldTicket", data: { ticketId: resold, price: "30.00" } },
        { action: "scannedTicket", data: { ticketId: scanned } },
        { action: "invalidatedTicket", data: { ticketId: invalidated } },
      ]),
    );
    await waitForLedgerStatus(chainApp.testApp, before, "confirmed");
    // Another event with one ticket: its cancellation is the figure to compare with, and its other tickets are left alone.
    const smallEventId = await eventWithReceiver("/small");
    const [smallTicket] = await soldTickets(smallEventId, 1);
    const otherEventId = await registeredEvent(api(), chainApp.ticketeerId);
    const [untouched] = await soldTickets(otherEventId, 1);

    const answer = await cancelEvent(eventId);
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ txPromise: expect.any(String), eventId, status: "success" });
    const cancellation = answer.body.txPromise as string;
    const status = await settled(api(), cancellation);
    expect(status).toMatchObject({ action: "cancelledEvent", requestedAs: "cancel", status: "confirmed", eventId, ticketId: null });

    // The chain: one item, one event-level log, one ERC-4906 signal over every token the event can have.
    const eventIndex = await eventIndexOf(chainApp.testApp, eventId);
    const { receipt, logs } = await receiptOf(cancellation);
    expect(logs.map(({ parsed }) => parsed.name)).toEqual(["EventCancelled", "BatchMetadataUpdate"]);
    expect([...logs[0].parsed.args]).toEqual([eventIndex, eventKeyOf(chainApp.ticketeerId, eventId)]);
    expect([...logs[1].parsed.args]).toEqual([(eventIndex << 64n) | 1n, (eventIndex << 64n) | ((1n << 64n) - 1n)]);
    const record = await registry().eventRecord(eventIndex);
    expect({ cancelled: record.cancelled, ticketsSold: record.ticketsSold }).toEqual({ cancelled: true, ticketsSold: BigInt(TICKETS) });

    // Its gas is the gas of cancelling an event with one ticket.
    const small = await cancelEvent(smallEventId);
    const { receipt: smallReceipt } = await receiptOf(small.body.txPromise);
    expect(receipt.gasUsed).toBe(smallReceipt.gasUsed);
    expect(receipt.gasUsed).toBeLessThan(60_000n);

    // The registry's tickets view, read for tokens across the event: each reads as cancelled, its own flags as they were.
    const tokens = await tokenIds(chainApp.testApp, [claimed, resold, scanned, invalidated, ticketIds[2_500], ticketIds[TICKETS - 1], smallTicket, untouched]);
    const views = await registry().tickets([...tokens.values()]);
    expect(views.map((view) => view.eventCancelled)).toEqual([true, true, true, true, true, true, true, false]);
    expect(views.map((view) => view.holder === ZeroAddress)).toEqual(Array(8).fill(false));
    expect(views.slice(0, 4).map(({ checkedIn, invalidated: void_, claimed: taken, resales }) => [checkedIn, void_, taken, Number(resales)])).toEqual([
      [true, false, true, 0],
      [false, false, false, 1],
      [true, false, false, 0],
      [false, true, false, 0],
    ]);
    // A claimed token stays with its holder, who can still move it.
    const claimedToken = tokens.get(claimed)!;
    expect(await registry().ownerOf(claimedToken)).toBe(holder.address);
    await (await registry().connect(holder).transferFrom(holder.address, Wallet.createRandom().address, claimedToken)).wait();

    // The token metadata, /verify and the ticket and event views say so.
    for (const ticketId of [ticketIds[2_500], claimed]) {
      const metadata = await fetchJson(`${chainApp.testApp.baseUrl}/tokens/${tokens.get(ticketId)}`);
      expect(metadata.status).toBe(200);
      expect(stateAttribute(metadata.body)).toBe("Event cancelled");
    }
    const page = await (await fetch(`${chainApp.testApp.baseUrl}/verify/${encodeURIComponent(scanned)}`)).text();
    expect(page).toContain('data-fact="event-cancelled" data-value="yes"');
    expect(page).toContain("Event cancelled: this ticket is no longer valid.");
    expect(page).toContain(`data-fact="event-cancel-tx">${status.txHash}`);
    expect((await api().get(`/api/v1/tickets/${scanned}`)).body).toMatchObject({
      state: "event_cancelled",
      eventCancelled: true,
      checkedIn: true,
      chain: { eventCancelled: true, checkedIn: true },
    });
    expect((await api().get(`/api/v1/tickets/${untouched}`)).body).toMatchObject({ state: "valid", eventCancelled: false });
    expect((await api().get(`/api/v1/events/${eventId}`)).body).toMatchObject({
      cancelled: true,
      cancelledAt: expect.any(String),
      ticketsSold: TICKETS,
      chain: { registered: true, cancelled: true },
      actions: [expect.objectContaining({ action: "newEvent" }), expect.objectContaining({ action: "cancelledEvent", status: "confirmed" })],
    });

    // The event's receiver got the cancelledEvent callback, once.
    const [row] = await callbackRows(chainApp.testApp, [cancellation]);
    expect(row.payload).toMatchObject({
      action: "cancelledEvent",
      transactionType: "event",
      eventId,
      ticketId: null,
      txHash: status.txHash,
      status: "confirmed",
    });
    const cancelledCallbacks = () =>
      chainApp.receiver
        .requests("/cancelled")
        .map((request) => JSON.parse(request.body) as { action: string })
        .filter((body) => body.action === "cancelledEvent");
    await eventually(async () => (cancelledCallbacks().length > 0 ? true : undefined), 120_000, "the cancelledEvent callback");
    expect(cancelledCallbacks()).toEqual([expect.objectContaining({ actionPromise: cancellation, eventId, txHash: status.txHash, status: "confirmed" })]);
  });

  it("refuses the event's further sales, resales, check-ins, invalidations and claims with event_cancelled, and a second cancellation with 409", async () => {
    const eventId = await registeredEvent(api(), chainApp.ticketeerId);
    const [ticketId, checkedIn] = await soldTickets(eventId, 2);
    const [scan] = actionPromises(await api().post("/stream", [{ action: "scannedTicket", data: { ticketId: checkedIn } }]));
    expect((await settled(api(), scan)).status).toBe("confirmed");
    expect((await settled(api(), (await cancelEvent(eventId)).body.txPromise)).status).toBe("confirmed");

    const refusals = [
      await api().post("/api/v1/sold", [{ eventId, ticketId: uid("t"), orderTime: 1_750_000_000, price: "10.00" }]),
      await api().post("/api/v1/resold", [{ ticketId, orderTime: 1_750_000_000, price: "10.00" }]),
      await api().post("/api/v1/scanned", [{ ticketId }]),
      await api().post("/api/v1/checkedin", [{ ticketId }]),
      await api().post("/api/v1/invalidated", [{ ticketId }]),
    ];
    expect(refusals.map((answer) => answer.body[0].error)).toEqual([
      expect.objectContaining({ code: "event_cancelled", field: "eventId" }),
      ...Array(4).fill(expect.objectContaining({ code: "event_cancelled", field: "ticketId" })),
    ]);
    const streamed = await api().post("/stream", [
      { action: "claimedTicket", data: { ticketId: checkedIn, to: Wallet.createRandom().address } },
      { action: "cancelledEvent", data: { eventId } },
    ]);
    expect(streamed.body.data.map((item: { status: string; error?: { code: string } }) => item.error?.code)).toEqual(["event_cancelled", "event_cancelled"]);

    const again = await cancelEvent(eventId);
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ status: "error", eventId, error: { code: "event_cancelled", field: "eventId" } });
  });
});

describe("bad input", () => {
  it("answers 404 event_not_found for an unknown event and for another organization's, and 400 naming eventId for an id that is none", async () => {
    const unknown = await cancelEvent(uid("never-registered"));
    expect(unknown.status).toBe(404);
    expect(unknown.body).toMatchObject({ status: "error", error: { code: "event_not_found", field: "eventId" } });

    const other = await chainApp.testApp.organization();
    const theirs = await registeredEvent(apiClient(chainApp.testApp.baseUrl, other.key), other.ticketeerId);
    const asUs = await cancelEvent(theirs);
    expect(asUs.status).toBe(404);
    expect(asUs.body).toEqual({ ...unknown.body, eventId: theirs, error: { ...unknown.body.error, message: `Event ${theirs} is not registered.` } });
    expect((await apiClient(chainApp.testApp.baseUrl, other.key).get(`/api/v1/events/${theirs}`)).body).toMatchObject({ cancelled: false });

    for (const eventId of ["x".repeat(256), "a\u200bb", "a\u0007b"]) {
      const answer = await cancelEvent(eventId);
      expect(answer.status, JSON.stringify(eventId)).toBe(400);
      expect(answer.body.error).toMatchObject({ code: "invalid_field", field: "eventId" });
    }
  });
});

describe("a cancellation waiting for the chain", () => {
  it("lets the event's sales accepted before it go first, on chain too: they are minted, then cancelled with the rest", async () => {
    const eventId = await registeredEvent(api(), chainApp.ticketeerId);
    const other = await registeredEvent(api(), chainApp.ticketeerId);
    const signing = signer.holdNext();
    // A first batch held at its signature keeps the next actions waiting behind it.
    const [first] = actionPromises(await api().post("/stream", [{ action: "soldTicket", data: { eventId: other, ticketId: uid("t"), price: "1" } }]));
    await signing.asked;
    let sales: string[];
    let cancellation: string;
    const waiting = [uid("t"), uid("t"), uid("t")];
    try {
      sales = txPromises(
        await api().post(
          "/api/v1/sold",
          waiting.map((ticketId) => ({ eventId, ticketId, orderTime: 1_750_000_000, price: "10.00" })),
        ),
      );
      [cancellation] = actionPromises(await api().post("/stream", [{ action: "cancelledEvent", data: { eventId } }]));
      expect((await actionRows(chainApp.testApp, [...sales, cancellation])).map((row) => row.status)).toEqual(Array(4).fill("waiting_broadcast"));
      // Accepted at once: the waiting sales' tickets read as cancelled already, and nothing more of the event is taken.
      expect((await api().get(`/api/v1/tickets/${waiting[0]}`)).body).toMatchObject({ state: "event_cancelled", chain: { minted: false } });
      const late = await api().post("/api/v1/sold", [{ eventId, ticketId: uid("t"), orderTime: 1_750_000_000, price: "10.00" }]);
      expect(late.body[0].error).toMatchObject({ code: "event_cancelled" });
    } finally {
      signing.release();
    }
    expect((await settled(api(), first)).status).toBe("confirmed");
    for (const promise of [...sales, cancellation]) expect((await settled(api(), promise)).status).toBe("confirmed");

    // On chain in acceptance order: every sale's mint before the cancellation's log.
    const position = async (promise: string, name: string) => {
      const { logs } = await receiptOf(promise);
      const { log } = logs.find(({ parsed }) => parsed.name === name)!;
      return [log.blockNumber, log.index] as const;
    };
    const cancelledAt = await position(cancellation, "EventCancelled");
    for (const sale of sales) {
      const [block, index] = await position(sale, "TicketSold");
      expect(block < cancelledAt[0] || (block === cancelledAt[0] && index < cancelledAt[1])).toBe(true);
    }
    const views = await registry().tickets([...(await tokenIds(chainApp.testApp, waiting)).values()]);
    expect(views.map((view) => [view.holder !== ZeroAddress, view.eventCancelled])).toEqual(Array(3).fill([true, true]));
  });

  it("can be withdrawn: the event and its tickets are as before, and nothing of it reaches the chain", async () => {
    const eventId = await registeredEvent(api(), chainApp.ticketeerId);
    const [ticketId] = await soldTickets(eventId, 1);
    const signing = signer.holdNext();
    const [first] = actionPromises(await api().post("/stream", [{ action: "soldTicket", data: { eventId, ticketId: uid("t"), price: "1" } }]));
    await signing.asked;
    let scan: string;
    try {
      const cancellation = (await cancelEvent(eventId)).body.txPromise as string;
      expect((await api().post("/api/v1/scanned", [{ ticketId }])).body[0].error).toMatchObject({ code: "event_cancelled" });

      const withdrawn = await api().post(`/api/v1/actions/${cancellation}/cancel`, undefined);
      expect(withdrawn.status).toBe(200);
      expect(withdrawn.body).toMatchObject({ actionPromise: cancellation, action: "cancelledEvent", status: "cancelled", eventId });
      expect((await api().get(`/api/v1/events/${eventId}`)).body).toMatchObject({ cancelled: false, cancelledAt: null });
      expect((await api().get(`/api/v1/tickets/${ticketId}`)).body).toMatchObject({ state: "valid", eventCancelled: false });
      [scan] = txPromises(await api().post("/api/v1/scanned", [{ ticketId }]));
      expect(await callbackRows(chainApp.testApp, [cancellation])).toEqual([]);
    } finally {
      signing.release();
    }
    expect((await settled(api(), first)).status).toBe("confirmed");
    expect((await settled(api(), scan)).status).toBe("confirmed");
    const eventIndex = await eventIndexOf(chainApp.testApp, eventId);
    expect((await registry().eventRecord(eventIndex)).cancelled).toBe(false);
    const [view] = await registry().tickets([(await tokenIds(chainApp.testApp, [ticketId])).get(ticketId)!]);
    expect({ checkedIn: view.checkedIn, eventCancelled: view.eventCancelled }).toEqual({ checkedIn: true, eventCancelled: false });
    const logs = await registry().queryFilter(registry().filters.EventCancelled(eventIndex), 0, "latest");
    expect(logs).toEqual([]);
    // Cancelled again, it goes out.
    expect((await settled(api(), (await cancelEvent(eventId)).body.txPromise)).status).toBe("confirmed");
    expect((await registry().eventRecord(eventIndex)).cancelled).toBe(true);
    const rows = await sqlOf(chainApp.testApp)(`SELECT cancelled_at FROM events WHERE event_id = $1`, [eventId]);
    expect(rows[0].cancelled_at).not.toBeNull();
  });
});
