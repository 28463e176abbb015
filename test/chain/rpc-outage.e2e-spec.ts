import { afterEach, describe, expect, it } from "vitest";

import { actionRows, chainTransactions, eventIndexOf, mints, registeredEvent, tokenIds, txPromises, uid, waitForLedgerStatus } from "../support/chain-e2e";
import { startTcpProxy, type TcpProxy } from "../support/tcp-proxy";
import { eventually, pauseMining, resumeMining } from "../support/test-chain";
import { useChainApp } from "../support/chain-app";

/**
 * The service reaches its JSON-RPC node through a TCP proxy the test can close (connections
 * refused) and reopen. Work accepted during an outage waits in the ledger and goes out once the node
 * is back, each action applied once.
 */

let proxy: TcpProxy;

const chainApp = useChainApp({
  node: "own",
  env: async (chain, defer) => {
    proxy = await startTcpProxy(Number(new URL(chain.url).port));
    defer(() => proxy.close());
    return { CHAIN_RPC_URL: proxy.url, SWEEP_INTERVAL_MS: "500", SWEEP_MIN_AGE_MS: "0" };
  },
});

afterEach(async () => {
  // A failed test must not leave the node unreachable for the next one.
  await proxy.open();
  await resumeMining(chainApp.chain);
});

async function sell(eventId: string, count: number): Promise<{ ticketIds: string[]; promises: string[] }> {
  const ticketIds = Array.from({ length: count }, () => uid("t"));
  const promises = txPromises(
    await chainApp.api.post(
      "/api/v1/sold",
      ticketIds.map((ticketId) => ({ eventId, ticketId, price: "3.5", orderTime: 1_750_000_000 })),
    ),
  );
  return { ticketIds, promises };
}

/** Every sale of the event minted exactly once, and only those. */
async function expectMintedOnce(eventId: string, ticketIds: string[]): Promise<void> {
  const eventIndex = await eventIndexOf(chainApp.testApp, eventId);
  const minted = (await mints(chainApp.chain)).filter((mint) => mint.tokenId >> 64n === eventIndex);
  expect(minted).toHaveLength(ticketIds.length);
  expect(new Set(minted.map((mint) => mint.tokenId))).toEqual(new Set((await tokenIds(chainApp.testApp, ticketIds)).values()));
  expect((await chainApp.chain.registry.eventRecord(eventIndex)).ticketsSold).toBe(BigInt(ticketIds.length));
}

describe("the JSON-RPC node unreachable", () => {
  it("while actions are accepted: they wait, /health says the chain is down, and they confirm once it is back", async () => {
    const eventId = await registeredEvent(chainApp.api, chainApp.ticketeerId);
    expect((await chainApp.api.get("/health")).status).toBe(200);
    const transactionsBefore = (await chainTransactions(chainApp.testApp)).length;

    await proxy.close();
    const { ticketIds, promises } = await sell(eventId, 20);

    // The service's provider shares identical requests for a moment, so the check may lag by that much.
    const health = await eventually(
      async () => {
        const answer = await chainApp.api.get("/health");
        return answer.status === 503 ? answer : undefined;
      },
      5_000,
      "/health to report the outage",
    );
    expect(health.body.error.chain.status).toBe("down");
    expect(health.body.details).toMatchObject({ database: { status: "up" }, redis: { status: "up" } });

    // Long enough for the writer's first attempts and a few sweeps: nothing leaves the ledger.
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    expect((await actionRows(chainApp.testApp, promises)).map((row) => row.status)).toEqual(Array(20).fill("waiting_broadcast"));
    expect((await chainApp.api.get(`/api/v1/actions/${promises[0]}`)).body).toMatchObject({ status: "waiting_broadcast", txHash: null });
    expect(await chainTransactions(chainApp.testApp)).toHaveLength(transactionsBefore);

    await proxy.open();
    await waitForLedgerStatus(chainApp.testApp, promises, "confirmed", 60_000);
    await eventually(async () => ((await chainApp.api.get("/health")).status === 200 ? true : undefined), 10_000, "/health to be up again");
    await expectMintedOnce(eventId, ticketIds);
  });

  it("while a sent transaction is being mined: the watcher confirms it once the node is back, without sending another", async () => {
    const eventId = await registeredEvent(chainApp.api, chainApp.ticketeerId);
    await pauseMining(chainApp.chain);
    const { ticketIds, promises } = await sell(eventId, 10);
    const sent = await eventually(
      async () => (await chainTransactions(chainApp.testApp)).find((tx) => tx.status === "broadcast" && tx.item_count === 10),
      20_000,
      "the sales to be broadcast",
    );
    expect((await actionRows(chainApp.testApp, promises)).map((row) => row.status)).toEqual(Array(10).fill("pending"));

    await proxy.close();
    await chainApp.chain.send("evm_mine");
    expect((await chainApp.chain.provider.getTransactionReceipt(sent.tx_hash))?.status).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect((await actionRows(chainApp.testApp, promises)).map((row) => row.status)).toEqual(Array(10).fill("pending"));

    await proxy.open();
    await resumeMining(chainApp.chain);
    await waitForLedgerStatus(chainApp.testApp, promises, "confirmed", 30_000);
    expect(new Set((await actionRows(chainApp.testApp, promises)).map((row) => row.tx_hash))).toEqual(new Set([sent.tx_hash]));
    const attempts = (await chainTransactions(chainApp.testApp)).filter((tx) => tx.nonce === sent.nonce);
    expect(attempts.map((tx) => [tx.tx_hash, tx.status])).toEqual([[sent.tx_hash, "confirmed"]]);
    await expectMintedOnce(eventId, ticketIds);
  });
});
