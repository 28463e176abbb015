import { describe, expect, it } from "vitest";

import { actionRows, CALLBACK_URL, callbackRows, chainTransactions, txPromises, uid } from "../support/chain-e2e";
import { eventually } from "../support/test-chain";
import { useChainApp } from "../support/chain-app";

/**
 * MAX_IN_FLIGHT_PER_SIGNER counts the nonces signed or sent and not yet mined: a batch mined and
 * not yet CONFIRMATIONS deep holds no slot. With 2 slots and 12 confirmations, sales sold one after
 * the other each go out and are mined in a block of their own (Hardhat mines one per transaction),
 * while the first batch is still far from final. Counted until final, the third batch would wait
 * for the first one's twelfth block, which nothing else mines here.
 */

const IN_FLIGHT = 2;
const CONFIRMATIONS = 12;
const SALES = 4;

const chainApp = useChainApp({
  env: { CONFIRMATIONS: String(CONFIRMATIONS), MAX_IN_FLIGHT_PER_SIGNER: String(IN_FLIGHT), BATCH_MAX_WAIT_MS: "0" },
});

/** The block each of these actions' transactions was seen mined in; undefined while one is not. */
async function minedBlocks(promises: string[]): Promise<number[] | undefined> {
  const rows = await actionRows(chainApp.testApp, promises);
  const transactions = await chainTransactions(chainApp.testApp);
  const blocks = rows.map((row) => transactions.find((tx) => tx.tx_hash === row.tx_hash && tx.status === "mined")?.block_number as string | undefined);
  return blocks.every((block) => block !== undefined) ? blocks.map(Number) : undefined;
}

describe("MAX_IN_FLIGHT_PER_SIGNER", () => {
  it("frees a slot once its batch is mined: more batches than slots are mined while none is final", async () => {
    const eventId = uid("event");
    const created = await chainApp.api.post("/api/v1/events", { eventId, ticketeerId: chainApp.ticketeerId, currency: "EUR", callbackUrl: CALLBACK_URL });
    expect(created.status).toBe(200);
    const promises = [created.body.txPromise as string];
    await eventually(() => minedBlocks(promises), 20_000, "the event's batch to be mined");

    // One sale at a time, each once the one before it is mined: a batch each.
    for (let sale = 0; sale < SALES; sale++) {
      const sold = await chainApp.api.post("/api/v1/sold", [{ eventId, ticketId: uid("t"), price: "2.5", orderTime: 1_750_000_000 }]);
      promises.push(...txPromises(sold));
      await eventually(
        () => minedBlocks(promises),
        20_000,
        `sale ${sale + 1} to be mined with ${IN_FLIGHT} slots and ${promises.length - 1} batches not final`,
      );
    }

    const blocks = (await minedBlocks(promises))!;
    expect(new Set((await actionRows(chainApp.testApp, promises)).map((row) => row.tx_hash)).size).toBe(SALES + 1);
    expect(new Set(blocks).size).toBeGreaterThan(IN_FLIGHT);
    // None is final yet: the first batch's block is not CONFIRMATIONS deep.
    const head = await chainApp.chain.provider.getBlockNumber();
    expect(head - Math.min(...blocks) + 1).toBeLessThan(CONFIRMATIONS);
    expect((await actionRows(chainApp.testApp, promises)).map((row) => row.status)).toEqual(promises.map(() => "pending"));

    // Deep enough: every batch is finalized, each action called back once.
    for (let block = 0; block < CONFIRMATIONS; block++) await chainApp.chain.send("evm_mine");
    await eventually(
      async () => ((await actionRows(chainApp.testApp, promises)).every((row) => row.status === "confirmed") ? true : undefined),
      20_000,
      "every action to be confirmed",
    );
    expect(await callbackRows(chainApp.testApp, promises)).toHaveLength(promises.length);
  });
});
