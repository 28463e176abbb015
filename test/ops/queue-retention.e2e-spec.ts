import { getQueueToken } from "@nestjs/bull";
import type { Queue } from "bull";
import { Wallet } from "ethers";
import Redis from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { CHAIN_WRITER_QUEUE, ChainWriterQueue } from "../../src/chain/queue/chain-writer.queue";
import { SignerLocks } from "../../src/chain/writer/signer-locks";
import { eventually } from "../support/test-chain";
import { useChainApp } from "../support/chain-app";

/** Small, so that a few hundred jobs are far past it. */
const KEEP = 10;
const JOBS = 150;

let redis: Redis;

const chainApp = useChainApp({ env: { QUEUE_KEEP_FINISHED_JOBS: String(KEEP) } });

beforeAll(() => {
  redis = new Redis(chainApp.testApp.config.redis.url);
});

afterAll(() => {
  redis?.disconnect();
});

/** Every job hash the queue keeps in Redis, under the app's key prefix (`<prefix>:bull:<queue>:<job id>`). */
async function jobKeys(): Promise<string[]> {
  const keys = await redis.keys(`${chainApp.testApp.config.redis.keyPrefix}:bull:${CHAIN_WRITER_QUEUE}:*`);
  return keys.filter((key) => /:\d+$/.test(key));
}

describe("Redis stays bounded", () => {
  it(`keeps at most QUEUE_KEEP_FINISHED_JOBS completed and failed jobs, however many ran`, async () => {
    const queue = chainApp.testApp.app.get<Queue>(getQueueToken(CHAIN_WRITER_QUEUE));
    const writerQueue = chainApp.testApp.app.get(ChainWriterQueue);
    // Flushes with nothing to send complete; a job no processor handles fails at once (no retry is asked for).
    for (let i = 0; i < JOBS; i++) await writerQueue.requestFlush("sweep");
    for (let i = 0; i < JOBS; i++) await queue.add("unhandled", {});
    await eventually(
      async () => {
        const counts = await queue.getJobCounts();
        return counts.waiting + counts.active + counts.delayed === 0 ? true : undefined;
      },
      60_000,
      "every job to finish",
    );
    const counts = await queue.getJobCounts();
    expect(counts.completed).toBeLessThanOrEqual(KEEP);
    expect(counts.failed).toBeLessThanOrEqual(KEEP);
    expect(counts.failed).toBeGreaterThan(0);
    expect((await jobKeys()).length).toBeLessThanOrEqual(2 * KEEP);
  });

  it("keeps no growing backlog of flush jobs while a flush holds the signer: one follow-up per signer waits, not one per request", async () => {
    const queue = chainApp.testApp.app.get<Queue>(getQueueToken(CHAIN_WRITER_QUEUE));
    const writerQueue = chainApp.testApp.app.get(ChainWriterQueue);
    // A long flush (a slow node, a big batch) holds the signer's lock while requests keep coming.
    const lock = await chainApp.testApp.app.get(SignerLocks).tryAcquire(`writer:${new Wallet(chainApp.chain.signerKeys[0]).address}`);
    try {
      for (let i = 0; i < JOBS; i++) await writerQueue.requestFlush("accepted");
      // Every request has been taken up once (none waits), and the flushes it woke have met the held lock a few times.
      await eventually(async () => ((await queue.getWaitingCount()) === 0 ? true : undefined), 60_000, "every request to be taken up");
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      const counts = await queue.getJobCounts();
      expect(counts.waiting + counts.delayed + counts.active).toBeLessThanOrEqual(3);
    } finally {
      await lock?.release();
    }
  });
});
