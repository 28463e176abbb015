import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";

import {
  actionRows,
  type Api,
  chainTransactions,
  eventIndexOf,
  mints,
  registeredEvent,
  tokenIds,
  txPromises,
  uid,
  waitForLedgerStatus,
} from "../support/chain-e2e";
import { startTcpProxy, type TcpProxy } from "../support/tcp-proxy";
import { eventually, pauseMining, resumeMining, startTestChain, type TestChain } from "../support/test-chain";
import { startTestApp, type TestApp } from "../support/test-app";

/**
 * The service reaches its JSON-RPC node through a TCP proxy the test can close (connections
 * refused) and reopen. Work accepted during an outage waits in the ledger and goes out once the node
 * is back, each action applied once.
 */

let chain: TestChain;
let proxy: TcpProxy;
let testApp: TestApp;
let api: Api;
let ticketeerId: string;

beforeAll(async () => {
  chain = await startTestChain();
  proxy = await startTcpProxy(Number(new URL(chain.url).port));
  testApp = await startTestApp({ ...chain.env, CHAIN_RPC_URL: proxy.url, SWEEP_INTERVAL_MS: "500", SWEEP_MIN_AGE_MS: "0" });
  ({ ticketeerId, api } = await testApp.client());
});

afterEach(async () => {
  // A failed test must not leave the node unreachable for the next one.
  await proxy.open();
  await resumeMining(chain);
});

afterAll(async () => {
  await testApp?.close();
  await proxy?.close();
  await chain?.stop();
});

async function sell(eventId: string, count: number): Promise<{ ticketIds: string[]; promises: string[] }> {
  const ticketIds = Array.from({ length: count }, () => uid("t"));
  const promises = txPromises(
    await api.post(
      "/api/v1/sold",
      ticketIds.map((ticketId) => ({ eventId, ticketId, price: "3.5", orderTime: 1_750_000_000 })),
    ),
  );
  return { ticketIds, promises };
}

/** Every sale of the event minted exactly once, and only those. */
async function expectMintedOnce(eventId: string, ticketIds: string[]): Promise<void> {
  const eventIndex = await eventIndexOf(testApp, eventId);
  const minted = (await mints(chain)).filter((mint) => mint.tokenId >> 64n === eventIndex);
  expect(minted).toHaveLength(ticketIds.length);
  expect(new Set(minted.map((mint) => mint.tokenId))).toEqual(new Set((await tokenIds(testApp, ticketIds)).values()));
  expect((await chain.registry.eventRecord(eventIndex)).ticketsSold).toBe(BigInt(ticketIds.length));
}

describe("the JSON-RPC node unreachable", () => {
  it("while actions are accepted: they wait, /health says the chain is down, and they confirm once it is back", async () => {
    const eventId = await registeredEvent(api, ticketeerId);
    expect((await api.get("/health")).status).toBe(200);
    const transactionsBefore = (await chainTransactions(testApp)).length;

    await proxy.close();
    const { ticketIds, promises } = await sell(eventId, 20);

    // The service's provider shares identical requests for a moment, so the check may lag by that much.
    const health = await eventually(
      async () => {
        const answer = await api.get("/health");
        return answer.status === 503 ? answer : undefined;
      },
      5_000,
      "/health to report the outage",
    );
    expect(health.body.error.chain.status).toBe("down");
    expect(health.body.details).toMatchObject({ database: { status: "up" }, redis: { status: "up" } });

    // Long enough for the writer's first attempts and a few sweeps: nothing leaves the ledger.
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    expect((await actionRows(testApp, promises)).map((row) => row.status)).toEqual(Array(20).fill("waiting_broadcast"));
    expect((await api.get(`/api/v1/actions/${promises[0]}`)).body).toMatchObject({ status: "waiting_broadcast", txHash: null });
    expect(await chainTransactions(testApp)).toHaveLength(transactionsBefore);

    await proxy.open();
    await waitForLedgerStatus(testApp, promises, "confirmed", 60_000);
    await eventually(async () => ((await api.get("/health")).status === 200 ? true : undefined), 10_000, "/health to be up again");
    await expectMintedOnce(eventId, ticketIds);
  });

  it("while a sent transaction is being mined: the watcher confirms it once the node is back, without sending another", async () => {
    const eventId = await registeredEvent(api, ticketeerId);
    await pauseMining(chain);
    const { ticketIds, promises } = await sell(eventId, 10);
    const sent = await eventually(
      async () => (await chainTransactions(testApp)).find((tx) => tx.status === "broadcast" && tx.item_count === 10),
      20_000,
      "the sales to be broadcast",
    );
    expect((await actionRows(testApp, promises)).map((row) => row.status)).toEqual(Array(10).fill("pending"));

    await proxy.close();
    await chain.send("evm_mine");
    expect((await chain.provider.getTransactionReceipt(sent.tx_hash))?.status).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect((await actionRows(testApp, promises)).map((row) => row.status)).toEqual(Array(10).fill("pending"));

    await proxy.open();
    await resumeMining(chain);
    await waitForLedgerStatus(testApp, promises, "confirmed", 30_000);
    expect(new Set((await actionRows(testApp, promises)).map((row) => row.tx_hash))).toEqual(new Set([sent.tx_hash]));
    const attempts = (await chainTransactions(testApp)).filter((tx) => tx.nonce === sent.nonce);
    expect(attempts.map((tx) => [tx.tx_hash, tx.status])).toEqual([[sent.tx_hash, "confirmed"]]);
    await expectMintedOnce(eventId, ticketIds);
  });
});
