import { describe, expect, it } from "vitest";

import { actionRows, CALLBACK_URL, callbackRows, chainTransactions, txPromises, uid } from "../support/chain-e2e";
import { eventually } from "../support/test-chain";
import { useChainApp } from "../support/chain-app";

/**
 * CONFIRMATIONS=finalized on Anvil, whose `finalized` block trails the head by two epochs (here
 * 2 × 2 slots): a mined batch stays pending while its block is above the finalized one, however
 * deep it is, and is confirmed once the chain has finalized it.
 */

const chainApp = useChainApp({ node: { kind: "anvil", slotsInAnEpoch: 2 }, env: { CONFIRMATIONS: "finalized" } });

async function finalizedBlock(): Promise<number> {
  const block = (await chainApp.chain.send("eth_getBlockByNumber", ["finalized", false])) as { number: string };
  return Number(block.number);
}

/** Three receipt polls (RECEIPT_POLL_MS is 100 in tests), so the watcher has seen the chain as it is now. */
const watcherLooks = () => new Promise((resolve) => setTimeout(resolve, 400));

describe("CONFIRMATIONS=finalized", () => {
  it("reports finalized as the chain's confirmations", async () => {
    expect((await chainApp.api.get("/api/v1/chain")).body).toMatchObject({
      chainId: 31337,
      registryAddress: chainApp.chain.registryAddress,
      confirmations: "finalized",
    });
  });

  it("keeps actions pending while their block is above the finalized block and confirms them once it is finalized", async () => {
    const eventId = uid("event");
    const created = await chainApp.api.post("/api/v1/events", { eventId, ticketeerId: chainApp.ticketeerId, currency: "EUR", callbackUrl: CALLBACK_URL });
    expect(created.status).toBe(200);
    const sold = txPromises(
      await chainApp.api.post(
        "/api/v1/sold",
        [uid("t"), uid("t"), uid("t")].map((ticketId) => ({ eventId, ticketId, price: "2.5", orderTime: 1_750_000_000 })),
      ),
    );
    const promises = [created.body.txPromise as string, ...sold];

    // Everything mined (Anvil mines a block per transaction), nothing confirmed yet.
    const blocks = await eventually(
      async () => {
        const rows = await actionRows(chainApp.testApp, promises);
        const transactions = await chainTransactions(chainApp.testApp);
        if (rows.some((row) => row.status !== "pending")) return undefined;
        const minedAt = rows.map((row) => transactions.find((tx) => tx.tx_hash === row.tx_hash && tx.status === "mined")?.block_number as string | undefined);
        return minedAt.every((block) => block !== undefined) ? minedAt.map(Number) : undefined;
      },
      20_000,
      "every action's transaction to be mined",
    );
    const lastBlock = Math.max(...blocks);

    // Block by block: an action confirms exactly when the chain has finalized its block.
    let sawPendingAtDepth = false;
    for (let mined = 0; (await finalizedBlock()) < lastBlock; mined++) {
      expect(mined, "blocks mined before the last batch was finalized").toBeLessThan(20);
      await watcherLooks();
      const finalized = await finalizedBlock();
      const rows = await actionRows(chainApp.testApp, promises);
      for (const [index, row] of rows.entries()) {
        if (blocks[index] > finalized) {
          expect(row.status, `action ${index} in block ${blocks[index]} with block ${finalized} finalized`).toBe("pending");
          // Deeper than any numeric default would ask, yet not final.
          if ((await chainApp.chain.provider.getBlockNumber()) - blocks[index] + 1 >= 3) sawPendingAtDepth = true;
        }
      }
      await chainApp.chain.send("evm_mine");
    }
    expect(sawPendingAtDepth).toBe(true);

    await eventually(
      async () => ((await actionRows(chainApp.testApp, promises)).every((row) => row.status === "confirmed") ? true : undefined),
      20_000,
      "the actions to be confirmed once finalized",
    );
    for (const [index, promise] of promises.entries()) {
      const status = (await chainApp.api.get(`/api/v1/actions/${promise}`)).body;
      const receipt = await chainApp.chain.provider.getTransactionReceipt(status.txHash);
      expect(status).toMatchObject({ status: "confirmed", blockNumber: blocks[index], blockHash: receipt!.blockHash });
      expect(receipt!.blockNumber).toBeLessThanOrEqual(await finalizedBlock());
    }
    const callbacks = await callbackRows(chainApp.testApp, promises);
    expect(callbacks).toHaveLength(promises.length);
  });
});
