import { Transaction } from "ethers";
import { describe, expect, it } from "vitest";

import { CALLBACK_URL, settled, uid } from "../support/chain-e2e";
import { NODE_MAX_TRANSACTION_BYTES } from "../support/production-node-proxy";
import { useChainApp } from "../support/chain-app";

// The service talks to the node through a production node's rules: over 128 KiB is "oversized data".
// A long wait lets all 100 events meet in the writer's queue, so that only the byte limit splits them.
const chainApp = useChainApp({ node: "own", productionNode: true, env: { BATCH_MAX_WAIT_MS: "1500" } });

/** The size of a mined transaction as the node received it (its signed envelope). */
async function signedBytes(txHash: string): Promise<number> {
  const tx = (await chainApp.chain.provider.getTransaction(txHash))!;
  return (Transaction.from(tx).serialized.length - 2) / 2;
}

describe("batches within a production node's limits", () => {
  it("splits 100 newEvents with the longest multibyte texts into transactions under TX_MAX_BYTES, and all confirm", async () => {
    const longText = "𝄞".repeat(255);
    // Four-byte characters in the URLs too: 255 characters of JavaScript string, as the API counts them.
    const url = (path: string) => `https://shop.example.com/${path}/${"𝄞".repeat(Math.floor((255 - 27 - path.length) / 2))}`;
    const actions = Array.from({ length: 100 }, () => ({
      action: "newEvent",
      data: { eventId: uid("event"), eventName: longText, currency: "EUR", shopUrl: url("s"), imageUrl: url("i"), callbackUrl: CALLBACK_URL },
    }));
    const answer = await chainApp.api.post("/stream", actions);
    expect(answer.body.data.map((entry: { status: string }) => entry.status)).toEqual(actions.map(() => "success"));
    const results = await Promise.all(answer.body.data.map((entry: { actionPromise: string }) => settled(chainApp.api, entry.actionPromise, 120_000)));
    expect(results.every((result) => result.status === "confirmed")).toBe(true);

    const hashes = [...new Set(results.map((result) => result.txHash as string))];
    const sizes = await Promise.all(hashes.map(signedBytes));
    // Together they would pass the node's limit: the writer had to split them.
    expect(sizes.reduce((sum, size) => sum + size, 0)).toBeGreaterThan(NODE_MAX_TRANSACTION_BYTES);
    expect(hashes.length).toBeGreaterThan(1);
    for (const size of sizes) expect(size).toBeLessThanOrEqual(chainApp.testApp.config.chain.writer.txMaxBytes);
    // The node refused nothing: every transaction it was sent was within its limit.
    expect(chainApp.productionNode.sent.length).toBeGreaterThanOrEqual(hashes.length);
    expect(chainApp.productionNode.sent.filter((tx) => tx.refusal !== null)).toEqual([]);
  });

  it("puts a production node's refusal in front of the chain: over 128 KiB is refused as oversized data", async () => {
    const oversized = "0x02" + "00".repeat(NODE_MAX_TRANSACTION_BYTES);
    const answer = await fetch(chainApp.productionNode.url, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 7, method: "eth_sendRawTransaction", params: [oversized] }),
    });
    expect(await answer.json()).toEqual({ jsonrpc: "2.0", id: 7, error: { code: -32000, message: "oversized data" } });
  });
});
