import { getAddress, toBeHex, Wallet } from "ethers";
import { describe, expect, it } from "vitest";

import { custodyMaskOf } from "../../src/registry";
import { apiClient } from "../support/api-client";
import { useChainApp } from "../support/chain-app";
import { actionPromises, eventIndexOf, registeredEvent, settled, tokenIds, uid, WALLET } from "../support/chain-e2e";

/**
 * A claim goes to the holder's wallet. An address the registry refuses as a receiver, or one where
 * nobody could hold the ticket, is refused at acceptance, and the ticket stays claimable.
 */

const chainApp = useChainApp();

/** A custody address of the registry for an event index, registered or not (CustodialERC721: mask XOR eventIndex << 96). */
function custodyAddressOf(eventIndex: bigint): string {
  return getAddress(toBeHex(custodyMaskOf(BigInt(chainApp.chain.chainId), chainApp.chain.registryAddress) ^ (eventIndex << 96n), 20));
}

/** Sells a ticket of `eventId` and checks it in, both confirmed: a ticket ready to be claimed. */
async function checkedInTicket(eventId: string): Promise<string> {
  const ticketId = uid("t");
  const promises = actionPromises(
    await chainApp.api.post("/stream", [
      { action: "soldTicket", data: { eventId, ticketId, price: "10" } },
      { action: "scannedTicket", data: { ticketId } },
    ]),
  );
  for (const promise of promises) expect((await settled(chainApp.api, promise)).status).toBe("confirmed");
  return ticketId;
}

async function claim(ticketId: string, to: string) {
  return chainApp.api.post("/stream", [{ action: "claimedTicket", data: { ticketId, to } }]);
}

/** Claims the ticket to WALLET and waits for the chain: the claim the refused one must not have blocked. */
async function claimsToWallet(ticketId: string): Promise<void> {
  const [promise] = actionPromises(await claim(ticketId, WALLET));
  expect((await settled(chainApp.api, promise)).status).toBe("confirmed");
  const [tokenId] = (await tokenIds(chainApp.testApp, [ticketId])).values();
  expect(await chainApp.chain.registry.ownerOf(tokenId)).toBe(WALLET);
  expect((await chainApp.api.get(`/api/v1/tickets/${ticketId}`)).body).toMatchObject({ state: "claimed", claimedTo: WALLET, chain: { claimed: true } });
}

describe("a claim to an address nobody can hold the ticket at", () => {
  const otherOrganizationsCustody = async () => {
    const other = await chainApp.testApp.organization();
    const eventId = await registeredEvent(apiClient(chainApp.testApp.baseUrl, other.key), other.ticketeerId);
    return custodyAddressOf(await eventIndexOf(chainApp.testApp, eventId));
  };

  const RECEIVERS: [string, () => Promise<string> | string][] = [
    ["the registry itself", () => chainApp.chain.registryAddress],
    ["its own event's custody address", async () => custodyAddressOf(await eventIndexOf(chainApp.testApp, eventOfFile))],
    ["another organization's event's custody address", otherOrganizationsCustody],
    ["a custody address of an event not registered yet", () => custodyAddressOf(1_000_000n)],
    ["the service's signer", () => new Wallet(chainApp.chain.signerKeys[0]).address],
    ["the precompile 0x…01", () => "0x0000000000000000000000000000000000000001"],
    ["the precompile 0x…ff", () => "0x00000000000000000000000000000000000000ff"],
    ["the burn address 0x…dEaD", () => "0x000000000000000000000000000000000000dEaD"],
  ];
  let eventOfFile = "";

  it.each(RECEIVERS)("is refused at acceptance for %s, naming `to`, and leaves the ticket claimable", async (_case, receiverOf) => {
    eventOfFile ||= await registeredEvent(chainApp.api, chainApp.ticketeerId);
    const ticketId = await checkedInTicket(eventOfFile);
    const answer = await claim(ticketId, await receiverOf());
    expect(answer.status).toBe(200);
    expect(answer.body.data[0]).toMatchObject({ status: "error", action: "claimedTicket", ticketId, error: { code: "invalid_field", field: "to" } });
    expect(answer.body.data[0].error.message).toMatch(/^to is /);
    expect((await chainApp.api.get(`/api/v1/tickets/${ticketId}`)).body).toMatchObject({ state: "checked_in", claimed: false, claimedTo: null });
    await claimsToWallet(ticketId);
  });
});
