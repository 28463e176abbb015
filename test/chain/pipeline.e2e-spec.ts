import { sha256, toUtf8Bytes } from "ethers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import type { ApiClient } from "../support/api-client";
import { eventually, startTestChain, type TestChain } from "../support/test-chain";
import { startTestApp, type TestApp } from "../support/test-app";

const WALLET = "0x52908400098527886E0F7030069857D2E4169EE7";

let chain: TestChain;
let testApp: TestApp;
let api: ApiClient;

beforeAll(async () => {
  chain = await startTestChain();
  testApp = await startTestApp(chain.env);
  ({ api } = await testApp.client());
});

afterAll(async () => {
  await testApp?.close();
  await chain?.stop();
});

async function settled(promise: string): Promise<any> {
  return eventually(
    async () => {
      const answer = await api.get(`/api/v1/actions/${promise}`);
      return ["confirmed", "error"].includes(answer.body.status) ? answer.body : undefined;
    },
    60_000,
    `action ${promise}`,
  );
}

describe("from HTTP to the chain", () => {
  it("confirms a stream of newEvent, soldTicket, scannedTicket and claimedTicket and mirrors them on chain", async () => {
    const answer = await api.post("/stream", [
      { action: "newEvent", data: { eventId: "e1", currency: "EUR", callbackUrl: "https://cb.example.com/x", eventName: "Show" } },
      { action: "soldTicket", data: { eventId: "e1", ticketId: "t1", price: "12.50", orderTime: 1750000000 } },
      { action: "scannedTicket", data: { ticketId: "t1", orderTime: 1750000100 } },
      { action: "claimedTicket", data: { ticketId: "t1", to: WALLET } },
    ]);
    const results = await Promise.all(answer.body.data.map((entry: { actionPromise: string }) => settled(entry.actionPromise)));
    expect(results.map((result) => result.status)).toEqual(["confirmed", "confirmed", "confirmed", "confirmed"]);
    expect(results[1].txHash).toMatch(/^0x[0-9a-f]{64}$/);

    const ticket = (await api.get("/api/v1/tickets/t1")).body;
    const tokenId = BigInt(ticket.chain.tokenId);
    expect(await chain.registry.ownerOf(tokenId)).toBe(WALLET);
    const onChain = await chain.registry.ticket(tokenId);
    expect([onChain.checkedIn, onChain.claimed, onChain.invalidated]).toEqual([true, true, false]);
    const [sale] = await chain.registry.queryFilter(chain.registry.filters.TicketSold(tokenId));
    expect(sale.args.ticketHash).toBe(sha256(toUtf8Bytes("t1")));
    expect(sale.args.price).toBe(12_500_000n);
    expect(sale.args.orderTime).toBe(1_750_000_000n);
    expect(ticket.chain).toMatchObject({ minted: true, checkedIn: true, claimed: true });
  });
});
