import { describe, expect, it } from "vitest";

import { RetentionService } from "../../src/retention/retention.service";
import { callbackWhen, eventWithTickets, requestsFor } from "../support/callbacks-e2e";
import { useChainApp } from "../support/chain-app";
import { sqlOf, tokenIds } from "../support/chain-e2e";

/**
 * Retention end to end: the real app sells on a Hardhat chain and delivers to a local HTTPS
 * receiver; the ledger's clock is then moved back for some rows (their delivery, their
 * transactions' finality), retention runs, and everything the service must never lose answers as
 * it did before: the actions' status and txHash, the token metadata, the public ticket page, the
 * usage statement, and a callback within the period, which is redelivered with its webhook-id.
 */
const chainApp = useChainApp({ receiver: true });

const PATH = "/retention";

/** What the never-lost list answers, read through the service's own routes. */
async function neverLost(promises: string[], tokenId: bigint, ticketId: string, from: string, to: string) {
  const { api, testApp } = chainApp;
  const actions = [];
  for (const promise of promises) {
    const answer = await api.get(`/api/v1/actions/${promise}`);
    expect(answer.status).toBe(200);
    const { status, txHash, blockNumber, blockHash, error } = answer.body;
    actions.push({ status, txHash, blockNumber, blockHash, error });
  }
  const metadata = await fetch(`${testApp.baseUrl}/tokens/${tokenId}`);
  expect(metadata.status).toBe(200);
  const page = await fetch(`${testApp.baseUrl}/verify/${encodeURIComponent(ticketId)}`);
  expect(page.status).toBe(200);
  const usage = await api.get(`/api/v1/usage?from=${encodeURIComponent(from)}&to=${encodeURIComponent(to)}&groupBy=event`);
  expect(usage.status, JSON.stringify(usage.body)).toBe(200);
  return { actions, metadata: await metadata.json(), page: await page.text(), usage: usage.body };
}

describe("retention", () => {
  it("deletes old delivered callbacks and final transactions' bytes, and everything never lost still answers", async () => {
    const { api, testApp, receiver } = chainApp;
    const sql = sqlOf(testApp);
    const from = new Date(Date.now() - 60_000).toISOString();
    const { eventId, ticketIds, promises } = await eventWithTickets(api, receiver.url(PATH), 2);
    const views = [];
    for (const promise of promises) views.push(await callbackWhen(api, eventId, promise, (view) => view.status === "delivered"));
    const to = new Date(Date.now() + 60_000).toISOString();
    const tokenId = (await tokenIds(testApp, [ticketIds[0]])).get(ticketIds[0])!;
    const before = await neverLost(promises, tokenId, ticketIds[0], from, to);
    expect(before.actions.every((action) => action.status === "confirmed" && /^0x[0-9a-f]{64}$/.test(action.txHash))).toBe(true);
    expect(before.page).toContain(before.actions[1].txHash);

    // The newEvent's and the first sale's callbacks were delivered past CALLBACK_RETENTION_DAYS (30);
    // the second sale's is within it. Every final transaction is past RAW_TX_RETENTION_HOURS (24).
    const [oldEvent, oldSale, young] = views;
    await sql(`UPDATE callbacks SET delivered_at = now() - interval '31 days' WHERE id = ANY($1::uuid[])`, [[oldEvent.callbackId, oldSale.callbackId]]);
    await sql(`UPDATE chain_transactions SET updated_at = now() - interval '25 hours' WHERE status IN ('confirmed', 'reverted', 'replaced')`);
    const [{ final }] = await sql<{ final: number }>(
      `SELECT count(*)::int AS final FROM chain_transactions WHERE status IN ('confirmed', 'reverted', 'replaced')`,
    );
    expect(final).toBeGreaterThan(0);

    const run = await testApp.app.get(RetentionService).runOnce();
    expect(run).toEqual({ callbacks: 2, callbackAttempts: oldEvent.attempts + oldSale.attempts, rawTransactions: final });
    expect(await sql(`SELECT id FROM chain_transactions WHERE raw_tx IS NOT NULL AND status IN ('confirmed', 'reverted', 'replaced')`)).toEqual([]);
    expect(await sql(`SELECT id FROM callback_attempts WHERE callback_id = ANY($1::uuid[])`, [[oldEvent.callbackId, oldSale.callbackId]])).toEqual([]);

    const after = await neverLost(promises, tokenId, ticketIds[0], from, to);
    expect(after.actions).toEqual(before.actions);
    expect(after.metadata).toEqual(before.metadata);
    expect(after.usage).toEqual(before.usage);
    expect(after.page).toContain(before.actions[1].txHash);

    // A deleted callback: unknown to reads, the listing and redelivery; its action still says what it reported.
    expect((await api.get(`/api/v1/callbacks/${oldSale.callbackId}`)).status).toBe(404);
    const listed = await api.get(`/api/v1/callbacks?eventId=${encodeURIComponent(eventId)}`);
    expect(listed.body.map((view: { callbackId: string }) => view.callbackId)).toEqual([young.callbackId]);
    const refused = await api.post(`/api/v1/callbacks/${oldSale.callbackId}/redeliver`, {});
    expect(refused.status).toBe(404);
    expect(refused.body.error.code).toBe("callback_not_found");
    expect(after.actions[1]).toMatchObject({ status: oldSale.body.status, txHash: oldSale.body.txHash, blockHash: oldSale.body.blockHash });

    // The callback within the period: whole, and sent again with the same webhook-id.
    const sentBefore = requestsFor(receiver.requests(PATH), promises[2]);
    const redelivered = await api.post(`/api/v1/callbacks/${young.callbackId}/redeliver`, {});
    expect(redelivered.status, JSON.stringify(redelivered.body)).toBe(200);
    expect(redelivered.body.body).toEqual(young.body);
    await callbackWhen(
      api,
      eventId,
      promises[2],
      (view) => view.status === "delivered" && view.attempts === 1 && view.attemptLog.length === young.attemptLog.length + 1,
    );
    const sentAfter = requestsFor(receiver.requests(PATH), promises[2]);
    expect(sentAfter).toHaveLength(sentBefore.length + 1);
    expect(sentAfter.at(-1)!.headers["webhook-id"]).toBe(young.callbackId);
    expect(JSON.parse(sentAfter.at(-1)!.body)).toEqual(young.body);
  });
});
