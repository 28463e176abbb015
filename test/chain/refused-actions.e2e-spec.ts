import { id, Wallet, ZeroHash } from "ethers";
import { beforeAll, describe, expect, it } from "vitest";

import { encodeBatch, eventKeyOf, type RegistryBatchItem, ticketeerKeyOf, ticketHashOf, tokenIdOf } from "../../src/registry";
import { useChainApp } from "../support/chain-app";
import { actionPromises, CALLBACK_URL, eventIndexOf, registeredEvent, settled, sqlOf, ticketView, tokenIds, uid, WALLET } from "../support/chain-e2e";
import { HARDHAT_KEYS } from "../support/test-chain";

/**
 * Whatever the registry refuses in the end, the ledger's accepted state goes back to what the chain
 * holds, so that the view and the chain agree and the next valid action is accepted. Every refusal
 * the registry can give an action the API accepted is made here as it happens in production: another
 * operator of the registry (here its admin, given the operator role) changed the ticket or took the
 * event index first. Refusals the API itself prevents (a receiver the registry refuses, a price it
 * cannot record, an index or serial out of range, 2^32 resales) are tested where they are refused.
 */

const chainApp = useChainApp();
const OTHER_WALLET = "0x1111111111111111111111111111111111111111";

beforeAll(async () => {
  const admin = new Wallet(HARDHAT_KEYS[0]).address;
  await (await chainApp.chain.registry.grantRole(id("OPERATOR_ROLE"), admin)).wait();
});

/** Another operator's batch, mined before the service's next one. */
async function elsewhere(items: RegistryBatchItem[]): Promise<void> {
  await (await chainApp.chain.registry.execute(encodeBatch(items))).wait();
}

async function stream(actions: { action: string; data: Record<string, unknown> }[]) {
  return chainApp.api.post("/stream", actions);
}

async function confirmed(promises: string[]): Promise<void> {
  for (const promise of promises) expect((await settled(chainApp.api, promise)).status).toBe("confirmed");
}

async function refusedWith(promise: string, code: string): Promise<void> {
  expect(await settled(chainApp.api, promise)).toMatchObject({ status: "error", error: { code } });
}

/** The ticket view and the registry's view of its token say the same; a ticket the chain never minted for it is not found. */
async function viewAgreesWithChain(ticketId: string, tokenId: bigint): Promise<void> {
  const onChain = await ticketView(chainApp.chain, tokenId);
  const view = await chainApp.api.get(`/api/v1/tickets/${ticketId}`);
  expect(view.status).toBe(200);
  expect(view.body).toMatchObject({
    checkedIn: onChain.checkedIn,
    invalidated: onChain.invalidated,
    claimed: onChain.claimed,
    claimedTo: onChain.claimed ? onChain.holder : null,
    resales: Number(onChain.resales),
  });
}

describe("a ticket action the registry refuses because another operator changed the ticket first", () => {
  let eventId: string;
  const moment = { orderTime: 1_750_000_000 };

  beforeAll(async () => {
    eventId = await registeredEvent(chainApp.api, chainApp.ticketeerId);
  });

  /** Sold tickets (and checked in, when asked), confirmed; their tokenIds. */
  async function soldTickets(count: number, checkedIn = false): Promise<{ ticketIds: string[]; tokens: bigint[] }> {
    const ticketIds = Array.from({ length: count }, () => uid("t"));
    const actions = ticketIds.flatMap((ticketId) => [
      { action: "soldTicket", data: { eventId, ticketId, price: "10" } },
      ...(checkedIn ? [{ action: "scannedTicket", data: { ticketId } }] : []),
    ]);
    await confirmed(actionPromises(await stream(actions)));
    const byId = await tokenIds(chainApp.testApp, ticketIds);
    return { ticketIds, tokens: ticketIds.map((ticketId) => byId.get(ticketId)!) };
  }

  it("refuses resales of tickets checked in, invalidated or claimed elsewhere, and the tickets read as the chain holds them", async () => {
    const { ticketIds, tokens } = await soldTickets(3);
    await elsewhere([
      { action: "checkedIn", tokenId: tokens[0], orderTime: 1n },
      { action: "invalidated", tokenId: tokens[1], orderTime: 1n },
      { action: "checkedIn", tokenId: tokens[2], orderTime: 1n },
      { action: "claimed", tokenId: tokens[2], to: OTHER_WALLET },
    ]);
    const promises = actionPromises(await stream(ticketIds.map((ticketId) => ({ action: "resoldTicket", data: { ticketId, price: "25", ...moment } }))));
    await refusedWith(promises[0], "onchain_ticket_checked_in");
    await refusedWith(promises[1], "onchain_ticket_invalidated");
    await refusedWith(promises[2], "onchain_ticket_claimed");
    for (const [index, ticketId] of ticketIds.entries()) await viewAgreesWithChain(ticketId, tokens[index]);
    expect((await chainApp.api.get(`/api/v1/tickets/${ticketIds[0]}`)).body).toMatchObject({ state: "checked_in", price: "10", resales: 0 });
    expect((await chainApp.api.get(`/api/v1/tickets/${ticketIds[2]}`)).body).toMatchObject({ state: "claimed", claimedTo: OTHER_WALLET });

    // The next valid action: the ticket checked in elsewhere is claimed.
    const [claim] = actionPromises(await stream([{ action: "claimedTicket", data: { ticketId: ticketIds[0], to: WALLET } }]));
    await confirmed([claim]);
    expect(await chainApp.chain.registry.ownerOf(tokens[0])).toBe(WALLET);
  });

  it("refuses a check-in, an invalidation and a claim of tickets invalidated or checked in elsewhere, and the next valid action is accepted", async () => {
    const { ticketIds, tokens } = await soldTickets(4);
    const [scannedAfterInvalidation, invalidatedAfterCheckIn, invalidatedTwice, claimedAfterInvalidation] = ticketIds;
    await elsewhere([
      { action: "invalidated", tokenId: tokens[0], orderTime: 1n },
      { action: "checkedIn", tokenId: tokens[1], orderTime: 1n },
      { action: "invalidated", tokenId: tokens[2], orderTime: 1n },
      { action: "invalidated", tokenId: tokens[3], orderTime: 1n },
    ]);
    const promises = actionPromises(
      await stream([
        { action: "scannedTicket", data: { ticketId: scannedAfterInvalidation, ...moment } },
        { action: "invalidatedTicket", data: { ticketId: invalidatedAfterCheckIn, ...moment } },
        { action: "invalidatedTicket", data: { ticketId: invalidatedTwice, ...moment } },
        { action: "scannedTicket", data: { ticketId: claimedAfterInvalidation, ...moment } },
        { action: "claimedTicket", data: { ticketId: claimedAfterInvalidation, to: WALLET } },
      ]),
    );
    await refusedWith(promises[0], "onchain_ticket_invalidated");
    await refusedWith(promises[1], "onchain_ticket_checked_in");
    await refusedWith(promises[2], "onchain_ticket_invalidated");
    await refusedWith(promises[3], "onchain_ticket_invalidated");
    await refusedWith(promises[4], "onchain_ticket_invalidated");
    for (const [index, ticketId] of ticketIds.entries()) await viewAgreesWithChain(ticketId, tokens[index]);

    // The ticket checked in elsewhere: checked in for the ledger too, so it is claimed, not invalidated.
    expect((await stream([{ action: "invalidatedTicket", data: { ticketId: invalidatedAfterCheckIn } }])).body.data[0].error.code).toBe("ticket_checked_in");
    await confirmed(actionPromises(await stream([{ action: "claimedTicket", data: { ticketId: invalidatedAfterCheckIn, to: WALLET } }])));
    await viewAgreesWithChain(invalidatedAfterCheckIn, tokens[1]);
  });

  it("refuses a claim of a ticket claimed elsewhere, and names the wallet the chain gave it", async () => {
    const { ticketIds, tokens } = await soldTickets(1, true);
    await elsewhere([{ action: "claimed", tokenId: tokens[0], to: OTHER_WALLET }]);
    const [claim] = actionPromises(await stream([{ action: "claimedTicket", data: { ticketId: ticketIds[0], to: WALLET } }]));
    await refusedWith(claim, "onchain_ticket_claimed");
    await viewAgreesWithChain(ticketIds[0], tokens[0]);
    expect((await chainApp.api.get(`/api/v1/tickets/${ticketIds[0]}`)).body).toMatchObject({ claimedTo: OTHER_WALLET, chain: { claimed: false } });
  });

  it("refuses a sale whose token another operator minted first: the ticket is released and sold again under a new serial", async () => {
    const [{ last_serial: lastSerial }] = await sqlOf(chainApp.testApp)<{ last_serial: string }>(`SELECT last_serial FROM events WHERE event_id = $1`, [
      eventId,
    ]);
    const eventIndex = await eventIndexOf(chainApp.testApp, eventId);
    const taken = tokenIdOf(eventIndex, BigInt(lastSerial) + 1n);
    await elsewhere([{ action: "sold", tokenId: taken, ticketHash: ticketHashOf(uid("someone-elses")), price: "1", orderTime: 1n }]);

    const ticketId = uid("t");
    const promises = actionPromises(
      await stream([
        { action: "soldTicket", data: { eventId, ticketId, price: "10" } },
        { action: "scannedTicket", data: { ticketId } },
      ]),
    );
    await refusedWith(promises[0], "onchain_ticket_exists");
    // The check-in went to the other operator's token, which exists: the chain applied it there.
    await settled(chainApp.api, promises[1]);
    expect((await chainApp.api.get(`/api/v1/tickets/${ticketId}`)).body).toMatchObject({ error: { code: "ticket_not_found" } });
    // Both actions keep their history: what the integrator was promised, and how it ended.
    expect((await chainApp.api.get(`/api/v1/actions/${promises[0]}`)).body).toMatchObject({ ticketId, status: "error" });

    const [resale] = actionPromises(await stream([{ action: "soldTicket", data: { eventId, ticketId, price: "10" } }]));
    await confirmed([resale]);
    const [tokenId] = (
      await sqlOf(chainApp.testApp)<{ token_id: string }>(`SELECT token_id FROM tickets WHERE ticket_id = $1 AND released_at IS NULL`, [ticketId])
    ).map((row) => BigInt(row.token_id));
    expect(tokenId).not.toBe(taken);
    await viewAgreesWithChain(ticketId, tokenId);
  });
});

describe("an event whose registry index another operator registered first", () => {
  it("refuses its registration, and its actions apply to what the registry holds under that index", async () => {
    const [{ next }] = await sqlOf(chainApp.testApp)<{ next: string }>(
      `SELECT (CASE WHEN is_called THEN last_value + 1 ELSE last_value END)::text AS next FROM registry_event_index_seq`,
    );
    const details = {
      name: "",
      currency: "EUR",
      shopUrl: "",
      imageUrl: "",
      latitude: 0,
      longitude: 0,
      startTime: 0n,
      endTime: 0n,
      organizer: "",
      metadataHash: ZeroHash,
    };
    await elsewhere([
      { action: "registerEvent", eventIndex: BigInt(next), eventKey: eventKeyOf("someone-else", "e"), ticketeer: ticketeerKeyOf("someone-else"), details },
    ]);

    const eventId = uid("event");
    const ticketId = uid("t");
    const promises = actionPromises(
      await stream([
        { action: "newEvent", data: { eventId, currency: "EUR", callbackUrl: CALLBACK_URL } },
        { action: "soldTicket", data: { eventId, ticketId, price: "10" } },
        { action: "scannedTicket", data: { ticketId } },
      ]),
    );
    expect(await eventIndexOf(chainApp.testApp, eventId)).toBe(BigInt(next));
    await refusedWith(promises[0], "onchain_event_exists");
    await confirmed(promises.slice(1));
    // The event stays: the registry holds one under its index, and its tickets are there.
    expect((await chainApp.api.get(`/api/v1/events/${eventId}`)).status).toBe(200);
    await viewAgreesWithChain(ticketId, (await tokenIds(chainApp.testApp, [ticketId])).get(ticketId)!);
  });
});
