import { getAddress, toBeHex } from "ethers";
import { afterAll, describe, expect, it } from "vitest";

import { custodyMaskOf } from "../../src/registry";
import { useChainApp } from "../support/chain-app";
import { actionPromises, CALLBACK_URL, settled, ticketView, tokenIds, uid, WALLET } from "../support/chain-e2e";
import { startWorkerProcess, type WorkerProcess } from "../support/worker-process";

/**
 * A claim the registry refuses leaves the ticket as the chain holds it: checked in and unclaimed, so
 * that it can be claimed again. The api refuses a receiver the registry would refuse once the ledger
 * knows its registry (claim-receivers.e2e-spec.ts); before any worker wrote, it does not know it yet,
 * and such a claim reaches the registry. Here the api runs in this process (APP_ROLE=api) and its
 * first worker starts after the claim was accepted.
 */

const chainApp = useChainApp({ env: { APP_ROLE: "api" } });
let worker: WorkerProcess | undefined;

afterAll(async () => {
  await worker?.kill();
});

describe("a claim the registry refuses on chain", () => {
  it("leaves the ticket checked in and unclaimed, and the next claim is accepted and confirmed", async () => {
    const eventId = uid("event");
    const ticketId = uid("t");
    const custody = getAddress(toBeHex(custodyMaskOf(BigInt(chainApp.chain.chainId), chainApp.chain.registryAddress) ^ (1n << 96n), 20));
    const promises = actionPromises(
      await chainApp.api.post("/stream", [
        { action: "newEvent", data: { eventId, currency: "EUR", callbackUrl: CALLBACK_URL } },
        { action: "soldTicket", data: { eventId, ticketId, price: "10" } },
        { action: "scannedTicket", data: { ticketId } },
        { action: "claimedTicket", data: { ticketId, to: custody } },
      ]),
    );
    worker = startWorkerProcess({ ...chainApp.sameLedgerEnv, SWEEP_INTERVAL_MS: "500", SWEEP_MIN_AGE_MS: "0" });

    expect(await settled(chainApp.api, promises[3], 90_000)).toMatchObject({ status: "error", error: { code: "onchain_invalid_receiver" } });
    const [tokenId] = (await tokenIds(chainApp.testApp, [ticketId])).values();
    expect(await ticketView(chainApp.chain, tokenId)).toMatchObject({
      checkedIn: true,
      claimed: false,
      holder: await chainApp.chain.registry.custodyAddress(tokenId >> 64n),
    });
    expect((await chainApp.api.get(`/api/v1/tickets/${ticketId}`)).body).toMatchObject({
      state: "checked_in",
      checkedIn: true,
      claimed: false,
      claimedTo: null,
      chain: { minted: true, checkedIn: true, claimed: false },
    });

    // Now that the worker bound the ledger to its registry, the same receiver is refused at once.
    expect((await chainApp.api.post("/stream", [{ action: "claimedTicket", data: { ticketId, to: custody } }])).body.data[0].error).toMatchObject({
      code: "invalid_field",
      field: "to",
    });
    const [claim] = actionPromises(await chainApp.api.post("/stream", [{ action: "claimedTicket", data: { ticketId, to: WALLET } }]));
    expect((await settled(chainApp.api, claim)).status).toBe("confirmed");
    expect(await chainApp.chain.registry.ownerOf(tokenId)).toBe(WALLET);
    expect((await chainApp.api.get(`/api/v1/tickets/${ticketId}`)).body).toMatchObject({ state: "claimed", claimedTo: WALLET, chain: { claimed: true } });
  });
});
