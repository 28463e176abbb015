import { Transaction } from "ethers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { type Api, CALLBACK_URL, settled, uid } from "../support/chain-e2e";
import { startTestChain, type TestChain } from "../support/test-chain";
import { startTestApp, type TestApp } from "../support/test-app";

/** geth's and bor's limit: a transaction over 128 KiB is refused as "oversized data". */
const NODE_LIMIT_BYTES = 131_072;

let chain: TestChain;
let testApp: TestApp;
let api: Api;

beforeAll(async () => {
  chain = await startTestChain();
  // A long wait lets all 100 events meet in the writer's queue, so that only the byte limit splits them.
  testApp = await startTestApp({ ...chain.env, BATCH_MAX_WAIT_MS: "1500" });
  ({ api } = await testApp.client());
});

afterAll(async () => {
  await testApp?.close();
  await chain?.stop();
});

/** The size of a mined transaction as the node received it (its signed envelope). */
async function signedBytes(txHash: string): Promise<number> {
  const tx = (await chain.provider.getTransaction(txHash))!;
  return (Transaction.from(tx).serialized.length - 2) / 2;
}

describe("batches within a production node's limits", () => {
  it("splits 100 newEvents with the longest multibyte texts into transactions under TX_MAX_BYTES, and all confirm", async () => {
    const longText = "𝄞".repeat(255);
    const url = (path: string) => `https://shop.example.com/${path}/${"a".repeat(255 - 27 - path.length)}`;
    const actions = Array.from({ length: 100 }, () => ({
      action: "newEvent",
      data: { eventId: uid("event"), eventName: longText, currency: "EUR", shopUrl: url("s"), imageUrl: url("i"), callbackUrl: CALLBACK_URL },
    }));
    const answer = await api.post("/stream", actions);
    expect(answer.body.data.map((entry: { status: string }) => entry.status)).toEqual(actions.map(() => "success"));
    const results = await Promise.all(answer.body.data.map((entry: { actionPromise: string }) => settled(api, entry.actionPromise, 120_000)));
    expect(results.every((result) => result.status === "confirmed")).toBe(true);

    const hashes = [...new Set(results.map((result) => result.txHash as string))];
    const sizes = await Promise.all(hashes.map(signedBytes));
    // Together they would pass the node's limit: the writer had to split them.
    expect(sizes.reduce((sum, size) => sum + size, 0)).toBeGreaterThan(NODE_LIMIT_BYTES);
    expect(hashes.length).toBeGreaterThan(1);
    for (const size of sizes) expect(size).toBeLessThanOrEqual(testApp.config.chain.writer.txMaxBytes);
  });
});
