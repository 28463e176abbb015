import { describe, expect, it } from "vitest";

import { actionPromises, allSettled, type Api, eventIndexOf, sqlOf, uid, waitForLedgerStatus } from "../support/chain-e2e";
import { useChainApp } from "../support/chain-app";

/**
 * The writer's fair share: organization B's one sale is not queued behind organization A's backlog.
 * Small batches (TX_MAX_BYTES) make A's 10,000 sales about 45 transactions, of which the signer
 * keeps 8 in flight: first in, first out, B's sale would wait for all of them.
 */
const chainApp = useChainApp({ receiver: true, env: { TX_MAX_BYTES: "16384" } });

const BACKLOG_REQUESTS = 2;
const PER_REQUEST = 5_000;

const soldActions = (eventId: string, prefix: string, count: number) =>
  Array.from({ length: count }, (_, i) => ({ action: "soldTicket", data: { eventId, ticketId: `${prefix}-${i}`, price: "10" } }));

async function registerEvent(api: Api, path: string): Promise<string> {
  const eventId = uid("event");
  const [promise] = actionPromises(
    await api.post("/stream", [{ action: "newEvent", data: { eventId, currency: "EUR", callbackUrl: chainApp.receiver.url(path) } }]),
  );
  expect((await allSettled(api, [promise]))[0].status).toBe("confirmed");
  return eventId;
}

describe("a fair share of the writer", () => {
  it("carries B's sale in one of the first batches signed after it was accepted, while A's backlog still waits, and keeps A's order", async () => {
    const a = chainApp.api;
    const b = await chainApp.testApp.client();
    const sql = sqlOf(chainApp.testApp);
    const eventA = await registerEvent(a, "/a");
    const eventB = await registerEvent(b.api, "/b");

    const backlog = await Promise.all(
      Array.from({ length: BACKLOG_REQUESTS }, (_, request) => a.post("/stream", soldActions(eventA, `a${request}`, PER_REQUEST))),
    );
    const promisesOfA = backlog.flatMap(actionPromises);
    const [{ next_nonce: nextNonce }] = await sql<{ next_nonce: string }>(`SELECT next_nonce FROM chain_signers`);
    const [promiseOfB] = actionPromises(await b.api.post("/stream", soldActions(eventB, "b", 1)));

    const [saleOfB] = await allSettled(b.api, [promiseOfB], 120_000);
    expect(saleOfB.status).toBe("confirmed");
    const [carrier] = await sql<{ nonce: string; block_number: string }>(`SELECT nonce, block_number FROM chain_transactions WHERE tx_hash = $1`, [
      saleOfB.txHash,
    ]);
    // The batch being planned when B's sale was accepted may not have seen it; the one after did.
    expect(Number(carrier.nonce)).toBeLessThanOrEqual(Number(nextNonce) + 1);
    const [{ behind }] = await sql<{ behind: number }>(
      `SELECT count(*)::int AS behind FROM chain_actions a JOIN chain_transactions t ON t.tx_hash = a.tx_hash
        WHERE a.id = ANY($1::uuid[]) AND t.nonce > $2`,
      [promisesOfA, carrier.nonce],
    );
    expect(behind).toBeGreaterThan(0);

    // Every sale of A confirms, in A's acceptance order: by nonce, then by place in the batch.
    await waitForLedgerStatus(chainApp.testApp, promisesOfA, "confirmed", 300_000);
    const order = await sql<{ nonce: string; batch_index: number }>(
      `SELECT t.nonce, a.batch_index FROM chain_actions a JOIN chain_transactions t ON t.tx_hash = a.tx_hash WHERE a.id = ANY($1::uuid[]) ORDER BY a.seq`,
      [promisesOfA],
    );
    const positions = order.map((row) => [Number(row.nonce), row.batch_index]);
    expect(positions).toEqual([...positions].sort(([n1, i1], [n2, i2]) => n1 - n2 || i1 - i2));
    expect((await chainApp.chain.registry.eventRecord(await eventIndexOf(chainApp.testApp, eventA))).ticketsSold).toBe(BigInt(BACKLOG_REQUESTS * PER_REQUEST));
    expect((await chainApp.chain.registry.eventRecord(await eventIndexOf(chainApp.testApp, eventB))).ticketsSold).toBe(1n);
    const [saleLog] = await chainApp.chain.registry.queryFilter(
      chainApp.chain.registry.filters.TicketSold(BigInt((await b.api.get("/api/v1/tickets/b-0")).body.chain.tokenId)),
    );
    expect(saleLog.transactionHash).toBe(saleOfB.txHash);

    // B's callback carries the batch that took its sale.
    const [callback] = await chainApp.receiver
      .waitForRequests("/b", 2, 30_000)
      .then((requests) => requests.map((request) => JSON.parse(request.body)).filter((body) => body.actionPromise === promiseOfB));
    expect(callback).toMatchObject({ action: "sold", ticketId: "b-0", txHash: saleOfB.txHash });
  }, 240_000);
});
