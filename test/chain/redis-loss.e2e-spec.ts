import { getQueueToken } from "@nestjs/bull";
import type { Queue } from "bull";
import Redis from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { CHAIN_WRITER_QUEUE } from "../../src/chain/queue/chain-writer.queue";
import { PendingActionsSweeper } from "../../src/chain/queue/pending-actions.sweeper";
import { actionRows, CALLBACK_URL, eventIndexOf, mints, tokenIds, txPromises, uid, waitForLedgerStatus } from "../support/chain-e2e";
import { useChainApp } from "../support/chain-app";

/**
 * Redis carries the chain writer's work but is not trusted with it: when the queue's keys vanish
 * after actions were accepted, the sweep finds the waiting actions in the ledger and queues them again.
 */

let redis: Redis;

// The periodic sweep is out of the way: the test runs it by hand.
const chainApp = useChainApp({ env: { SWEEP_MIN_AGE_MS: "0", SWEEP_INTERVAL_MS: "600000" } });

beforeAll(() => {
  redis = new Redis(chainApp.testApp.config.redis.url);
});

afterAll(() => {
  redis?.disconnect();
});

/** Deletes the app's Bull keys, and only those. */
async function flushBullKeys(): Promise<number> {
  const keys = await redis.keys(`${chainApp.testApp.config.redis.keyPrefix}:bull:*`);
  if (keys.length > 0) await redis.del(...keys);
  return keys.length;
}

describe("the queue's Redis keys lost after acceptance", () => {
  it("the sweep re-queues the waiting actions and they confirm, each once", async () => {
    const queue = chainApp.testApp.app.get<Queue>(getQueueToken(CHAIN_WRITER_QUEUE));
    // Hold the flush job in Redis (a paused queue keeps it) so that it is lost before any worker takes it.
    await queue.pause();

    const eventId = uid("event");
    const created = await chainApp.api.post("/api/v1/events", { eventId, ticketeerId: chainApp.ticketeerId, currency: "EUR", callbackUrl: CALLBACK_URL });
    expect(created.status).toBe(200);
    const ticketIds = Array.from({ length: 10 }, () => uid("t"));
    const sold = txPromises(
      await chainApp.api.post(
        "/api/v1/sold",
        ticketIds.map((ticketId) => ({ eventId, ticketId, price: "1", orderTime: 1_750_000_000 })),
      ),
    );
    const promises = [created.body.txPromise as string, ...sold];
    const counts = await queue.getJobCounts();
    expect(counts.waiting + counts.delayed + counts.active + ((counts as { paused?: number }).paused ?? 0)).toBeGreaterThan(0);

    // Redis loses everything of the queue, its paused flag included.
    expect(await flushBullKeys()).toBeGreaterThan(0);
    expect(await redis.keys(`${chainApp.testApp.config.redis.keyPrefix}:bull:*`)).toEqual([]);
    expect(await queue.isPaused()).toBe(false);

    // Nothing carries the work now: it waits in the ledger.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect((await actionRows(chainApp.testApp, promises)).map((row) => row.status)).toEqual(Array(11).fill("waiting_broadcast"));

    expect(await chainApp.testApp.app.get(PendingActionsSweeper).sweep()).toBe(11);
    await waitForLedgerStatus(chainApp.testApp, promises, "confirmed", 30_000);
    for (const promise of [promises[0], promises[10]]) {
      expect((await chainApp.api.get(`/api/v1/actions/${promise}`)).body).toMatchObject({
        status: "confirmed",
        txHash: expect.stringMatching(/^0x[0-9a-f]{64}$/),
      });
    }

    const eventIndex = await eventIndexOf(chainApp.testApp, eventId);
    const minted = (await mints(chainApp.chain)).filter((mint) => mint.tokenId >> 64n === eventIndex);
    expect(minted.map((mint) => mint.tokenId).sort()).toEqual([...(await tokenIds(chainApp.testApp, ticketIds)).values()].sort());
    expect((await chainApp.chain.registry.eventRecord(eventIndex)).ticketsSold).toBe(10n);
    // With nothing left waiting, a sweep queues nothing.
    expect(await chainApp.testApp.app.get(PendingActionsSweeper).sweep()).toBe(0);
  });
});
