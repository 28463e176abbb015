import { toQuantity, Wallet, ZeroAddress } from "ethers";
import { EventSource } from "eventsource";
import { describe, expect, it } from "vitest";

import { apiClient } from "../support/api-client";
import { useChainApp } from "../support/chain-app";
import {
  actionPromises,
  actionRows,
  CALLBACK_URL,
  callbackRows,
  chainTransactions,
  registeredEvent,
  settled,
  sqlOf,
  ticketView,
  uid,
  WALLET,
} from "../support/chain-e2e";
import { type HeldSigner, startHeldSigner } from "../support/held-signer";
import { eventually } from "../support/test-chain";

/**
 * `POST /api/v1/actions/{promise}/cancel` withdraws an action that has not gone out: it becomes
 * `cancelled`, its ticket or event is as if it had never been accepted, and nothing of it reaches the
 * chain, even when the writer is signing the batch that holds it at that very moment. The signer is
 * remote here (a stand-in that can hold a signature), so that a test acts while the writer signs.
 */

let signer: HeldSigner;

const chainApp = useChainApp({
  env: async (chain, defer) => {
    signer = await startHeldSigner(chain.signerKeys);
    defer(() => signer.close());
    const addresses = chain.signerKeys.map((key) => new Wallet(key).address);
    return { SIGNER_PRIVATE_KEYS: "", SIGNER_REMOTE_URL: signer.url, SIGNER_ADDRESSES: addresses.join(","), SIGNER_FUNDS_CHECK_MS: "500" };
  },
});

const cancel = (promise: string) => chainApp.api.post(`/api/v1/actions/${promise}/cancel`, undefined);
const operator = () => new Wallet(chainApp.chain.signerKeys[0]).address;
const setBalance = (wei: bigint) => chainApp.chain.send("hardhat_setBalance", [operator(), toQuantity(wei)]);

async function tokenOf(ticketId: string): Promise<bigint> {
  const [row] = await sqlOf(chainApp.testApp)<{ token_id: string }>(`SELECT token_id FROM tickets WHERE ticket_id = $1 ORDER BY created_at DESC LIMIT 1`, [
    ticketId,
  ]);
  return BigInt(row.token_id);
}

/** The statuses the live status stream shows for one action, from its history. */
async function liveStatuses(promise: string): Promise<string[]> {
  const statuses: string[] = [];
  const source = new EventSource(`${chainApp.testApp.baseUrl}/api/v1/actions/events?promises=${promise}`, {
    fetch: (input, init) => fetch(input, { ...init, headers: { ...(init?.headers as Record<string, string>), "x-api-key": chainApp.organization.key } }),
  });
  source.addEventListener("status", (event) => statuses.push((JSON.parse(event.data) as { status: string }).status));
  try {
    await eventually(async () => (statuses.includes("cancelled") ? true : undefined), 10_000, "the stream to show the cancellation");
  } finally {
    source.close();
  }
  return statuses;
}

describe("cancelling an action while the writer signs its batch", () => {
  it("takes the action out: the writer plans the batch again without it, and only the other action reaches the chain", async () => {
    const eventId = await registeredEvent(chainApp.api, chainApp.ticketeerId);
    const [kept, withdrawn] = [uid("t"), uid("t")];
    const askedBefore = signer.asked.length;
    const signing = signer.holdNext();
    const promises = actionPromises(
      await chainApp.api.post("/stream", [
        { action: "soldTicket", data: { eventId, ticketId: kept, price: "10" } },
        { action: "soldTicket", data: { eventId, ticketId: withdrawn, price: "10" } },
      ]),
    );
    // The writer took both sales into a batch and is waiting for its signature.
    await signing.asked;
    const cancelled = await cancel(promises[1]);
    expect(cancelled.status).toBe(200);
    expect(cancelled.body).toMatchObject({ actionPromise: promises[1], status: "cancelled", ticketId: withdrawn, txHash: null });
    signing.release();

    expect((await settled(chainApp.api, promises[0])).status).toBe("confirmed");
    expect((await settled(chainApp.api, promises[1])).status).toBe("cancelled");
    const withdrawnToken = await tokenOf(withdrawn);
    expect((await chainApp.chain.registry.tickets([withdrawnToken]))[0].holder).toBe(ZeroAddress);
    expect((await ticketView(chainApp.chain, await tokenOf(kept))).holder).not.toBe(ZeroAddress);
    // Every transaction the ledger committed carries the kept sale alone; the bytes signed with both were never committed.
    expect((await chainTransactions(chainApp.testApp)).filter((tx) => tx.item_count === 2)).toEqual([]);
    expect(await callbackRows(chainApp.testApp, [promises[1]])).toEqual([]);
    // The writer signed the batch again, at the same nonce, with the kept sale alone.
    const [withBoth, withOne] = signer.asked.slice(askedBefore);
    expect(withOne.nonce).toBe(withBoth.nonce);
    expect(withOne.data.length).toBeLessThan(withBoth.data.length);
    // The live status stream shows it cancelled.
    expect(await liveStatuses(promises[1])).toContain("cancelled");
    // A cancelled sale frees its ticketId.
    expect((await chainApp.api.get(`/api/v1/tickets/${withdrawn}`)).body).toMatchObject({ error: { code: "ticket_not_found" } });
    const [again] = actionPromises(await chainApp.api.post("/stream", [{ action: "soldTicket", data: { eventId, ticketId: withdrawn, price: "10" } }]));
    expect((await settled(chainApp.api, again)).status).toBe("confirmed");
  });

  it("refuses an action the writer signed first: 409 action_not_cancellable, and it confirms on chain", async () => {
    const eventId = await registeredEvent(chainApp.api, chainApp.ticketeerId);
    const signing = signer.holdNext();
    const [sale] = actionPromises(await chainApp.api.post("/stream", [{ action: "soldTicket", data: { eventId, ticketId: uid("t"), price: "10" } }]));
    await signing.asked;
    signing.release();
    await eventually(
      async () => ((await actionRows(chainApp.testApp, [sale]))[0].status !== "waiting_broadcast" ? true : undefined),
      30_000,
      "the sale to be signed",
    );

    const refused = await cancel(sale);
    expect(refused.status).toBe(409);
    expect(refused.body.error).toMatchObject({ code: "action_not_cancellable" });
    expect((await settled(chainApp.api, sale)).status).toBe("confirmed");
  });
});

describe("cancelling an action waiting for funds", () => {
  it("withdraws a claim to a mistyped wallet: the ticket stays checked in and unclaimed, and nothing of it goes out once funded", async () => {
    const eventId = await registeredEvent(chainApp.api, chainApp.ticketeerId);
    const ticketId = uid("t");
    await Promise.all(
      actionPromises(
        await chainApp.api.post("/stream", [
          { action: "soldTicket", data: { eventId, ticketId, price: "10" } },
          { action: "scannedTicket", data: { ticketId } },
        ]),
      ).map((promise) => settled(chainApp.api, promise)),
    );
    const balance = await chainApp.chain.provider.getBalance(operator());
    await setBalance(0n);
    try {
      const [claim] = actionPromises(await chainApp.api.post("/stream", [{ action: "claimedTicket", data: { ticketId, to: WALLET } }]));
      await eventually(async () => ((await actionRows(chainApp.testApp, [claim]))[0].status === "waiting_funds" ? true : undefined), 30_000, "waiting_funds");

      const answer = await cancel(claim);
      expect(answer.status).toBe(200);
      expect(answer.body).toMatchObject({ status: "cancelled" });
      expect((await chainApp.api.get(`/api/v1/tickets/${ticketId}`)).body).toMatchObject({ state: "checked_in", claimed: false, claimedTo: null });
    } finally {
      await setBalance(balance);
    }
    // Funded again: a later action goes out, the cancelled claim never does.
    const [scan] = actionPromises(await chainApp.api.post("/stream", [{ action: "scannedTicket", data: { ticketId } }]));
    expect((await settled(chainApp.api, scan)).status).toBe("confirmed");
    expect(await ticketView(chainApp.chain, await tokenOf(ticketId))).toMatchObject({ claimed: false });
    const [claimAgain] = actionPromises(await chainApp.api.post("/stream", [{ action: "claimedTicket", data: { ticketId, to: WALLET } }]));
    expect((await settled(chainApp.api, claimAgain)).status).toBe("confirmed");
  });
});

describe("what cannot be cancelled", () => {
  it("refuses a sale with a later action on its ticket, naming that action, until the later one is cancelled", async () => {
    const eventId = await registeredEvent(chainApp.api, chainApp.ticketeerId);
    const ticketId = uid("t");
    const signing = signer.holdNext();
    // A first batch held at its signature keeps the next actions waiting behind it.
    const [first] = actionPromises(await chainApp.api.post("/stream", [{ action: "soldTicket", data: { eventId, ticketId: uid("t"), price: "1" } }]));
    await signing.asked;
    const [sale, scan] = actionPromises(
      await chainApp.api.post("/stream", [
        { action: "soldTicket", data: { eventId, ticketId, price: "10" } },
        { action: "scannedTicket", data: { ticketId } },
      ]),
    );
    try {
      const blocked = await cancel(sale);
      expect(blocked.status).toBe(409);
      expect(blocked.body).toMatchObject({ error: { code: "action_not_cancellable" }, blockedBy: scan });
      expect((await cancel(scan)).body).toMatchObject({ status: "cancelled" });
      expect((await chainApp.api.get(`/api/v1/tickets/${ticketId}`)).body).toMatchObject({ state: "valid", checkedIn: false });
      expect((await cancel(sale)).body).toMatchObject({ status: "cancelled" });
      expect((await cancel(sale)).body.error).toMatchObject({ code: "action_not_cancellable" });
    } finally {
      signing.release();
    }
    expect((await settled(chainApp.api, first)).status).toBe("confirmed");
  });

  it("refuses a registration with sales, and frees the eventId of a registration cancelled alone", async () => {
    const signing = signer.holdNext();
    const [first] = actionPromises(
      await chainApp.api.post("/stream", [{ action: "newEvent", data: { eventId: uid("event"), currency: "EUR", callbackUrl: CALLBACK_URL } }]),
    );
    await signing.asked;
    const [withSales, alone] = [uid("event"), uid("event")];
    const promises = actionPromises(
      await chainApp.api.post("/stream", [
        { action: "newEvent", data: { eventId: withSales, currency: "EUR", callbackUrl: CALLBACK_URL } },
        { action: "soldTicket", data: { eventId: withSales, ticketId: uid("t"), price: "10" } },
        { action: "newEvent", data: { eventId: alone, currency: "EUR", callbackUrl: CALLBACK_URL } },
      ]),
    );
    try {
      expect((await cancel(promises[0])).body).toMatchObject({ error: { code: "action_not_cancellable" }, blockedBy: promises[1] });
      expect((await cancel(promises[2])).body).toMatchObject({ status: "cancelled", eventId: alone });
      expect((await chainApp.api.get(`/api/v1/events/${alone}`)).body).toMatchObject({ error: { code: "event_not_found" } });
    } finally {
      signing.release();
    }
    const [registered] = actionPromises(
      await chainApp.api.post("/stream", [{ action: "newEvent", data: { eventId: alone, currency: "EUR", callbackUrl: CALLBACK_URL } }]),
    );
    expect((await settled(chainApp.api, registered)).status).toBe("confirmed");
    expect((await settled(chainApp.api, first)).status).toBe("confirmed");
  });

  it("answers 404 action_not_found for another organization's promise and for an unknown one", async () => {
    const eventId = await registeredEvent(chainApp.api, chainApp.ticketeerId);
    const signing = signer.holdNext();
    const [sale] = actionPromises(await chainApp.api.post("/stream", [{ action: "soldTicket", data: { eventId, ticketId: uid("t"), price: "10" } }]));
    await signing.asked;
    try {
      const other = await chainApp.testApp.organization();
      const theirs = await apiClient(chainApp.testApp.baseUrl, other.key).post(`/api/v1/actions/${sale}/cancel`, undefined);
      expect(theirs.status).toBe(404);
      expect(theirs.body.error).toMatchObject({ code: "action_not_found" });
      expect((await cancel("01a9c3d2-5b7e-7f10-8a4b-2c6d8e0f1a3b")).status).toBe(404);
      expect((await cancel("not-a-promise")).status).toBe(404);
    } finally {
      signing.release();
    }
    expect((await settled(chainApp.api, sale)).status).toBe("confirmed");
  });
});
