import { sha256, toUtf8Bytes } from "ethers";
import { describe, expect, it } from "vitest";

import { WALLET } from "../support/fixtures";
import { eventually } from "../support/test-chain";
import { useChainApp } from "../support/chain-app";

const chainApp = useChainApp();

async function settled(promise: string): Promise<any> {
  return eventually(
    async () => {
      const answer = await chainApp.api.get(`/api/v1/actions/${promise}`);
      return ["confirmed", "error"].includes(answer.body.status) ? answer.body : undefined;
    },
    60_000,
    `action ${promise}`,
  );
}

describe("from HTTP to the chain", () => {
  it("confirms a stream of newEvent, soldTicket, scannedTicket and claimedTicket and mirrors them on chain", async () => {
    const answer = await chainApp.api.post("/stream", [
      { action: "newEvent", data: { eventId: "e1", currency: "EUR", callbackUrl: "https://cb.example.com/x", eventName: "Show" } },
      { action: "soldTicket", data: { eventId: "e1", ticketId: "t1", price: "12.50", orderTime: 1750000000 } },
      { action: "scannedTicket", data: { ticketId: "t1", orderTime: 1750000100 } },
      { action: "claimedTicket", data: { ticketId: "t1", to: WALLET } },
    ]);
    const results = await Promise.all(answer.body.data.map((entry: { actionPromise: string }) => settled(entry.actionPromise)));
    expect(results.map((result) => result.status)).toEqual(["confirmed", "confirmed", "confirmed", "confirmed"]);
    expect(results[1].txHash).toMatch(/^0x[0-9a-f]{64}$/);

    const ticket = (await chainApp.api.get("/api/v1/tickets/t1")).body;
    const tokenId = BigInt(ticket.chain.tokenId);
    expect(await chainApp.chain.registry.ownerOf(tokenId)).toBe(WALLET);
    const onChain = await chainApp.chain.registry.ticket(tokenId);
    expect([onChain.checkedIn, onChain.claimed, onChain.invalidated]).toEqual([true, true, false]);
    const [sale] = await chainApp.chain.registry.queryFilter(chainApp.chain.registry.filters.TicketSold(tokenId));
    expect(sale.args.ticketHash).toBe(sha256(toUtf8Bytes("t1")));
    expect(sale.args.price).toBe(12_500_000n);
    expect(sale.args.orderTime).toBe(1_750_000_000n);
    expect(ticket.chain).toMatchObject({ minted: true, checkedIn: true, claimed: true });
  });
});
