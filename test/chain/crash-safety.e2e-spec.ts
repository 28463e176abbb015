import { Wallet } from "ethers";
import { afterAll, afterEach, describe, expect, it } from "vitest";

import {
  actionRows,
  CALLBACK_URL,
  callbackRows,
  chainTransactions,
  eventIndexOf,
  mints,
  tokenIds,
  txPromises,
  uid,
  waitForLedgerStatus,
} from "../support/chain-e2e";

import { startWorkerProcess, type WorkerProcess } from "../support/worker-process";
import { useChainApp } from "../support/chain-app";

/**
 * The writer commits each signed transaction before broadcasting it. A real worker process is killed
 * (SIGKILL, by the CHAIN_WRITER_CRASH_AT hook) right after the commit and right after the broadcast;
 * a restarted worker finishes the work, and the chain shows every ticket minted exactly once.
 *
 * The API runs in this process with APP_ROLE=api; the worker runs apart with APP_ROLE=worker.
 */

const SALES = 50;

const workers = new Set<WorkerProcess>();

const chainApp = useChainApp({ env: { APP_ROLE: "api" } });

afterEach(async () => {
  for (const worker of workers) await worker.kill();
  workers.clear();
});

afterAll(async () => {
  for (const worker of workers) await worker.kill();
});

function startWorker(crashAt?: "after-persist" | "after-broadcast"): WorkerProcess {
  const worker = startWorkerProcess({
    ...chainApp.sameLedgerEnv,
    SWEEP_INTERVAL_MS: "500",
    SWEEP_MIN_AGE_MS: "0",
    ...(crashAt ? { CHAIN_WRITER_CRASH_AT: crashAt } : {}),
  });
  workers.add(worker);
  return worker;
}

async function diedBySigkill(worker: WorkerProcess): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`the worker did not crash within 60 s:\n${worker.output()}`)), 60_000);
  });
  const exit = await Promise.race([worker.exited, timeout]).finally(() => clearTimeout(timer));
  expect(exit, worker.output()).toEqual({ code: null, signal: "SIGKILL" });
  workers.delete(worker);
}

/** An event and SALES sales, accepted while no worker runs: the first batch carries them all. */
async function acceptEventAndSales(): Promise<{ eventId: string; ticketIds: string[]; promises: string[] }> {
  const eventId = uid("event");
  const created = await chainApp.api.post("/api/v1/events", { eventId, ticketeerId: chainApp.ticketeerId, currency: "EUR", callbackUrl: CALLBACK_URL });
  expect(created.status).toBe(200);
  const ticketIds = Array.from({ length: SALES }, () => uid("t"));
  const sold = txPromises(
    await chainApp.api.post(
      "/api/v1/sold",
      ticketIds.map((ticketId, index) => ({ eventId, ticketId, price: "5", orderTime: 1_750_000_000 + index })),
    ),
  );
  return { eventId, ticketIds, promises: [created.body.txPromise as string, ...sold] };
}

/** After the restart: confirmed, in the one transaction signed before the crash, each ticket minted once. */
async function expectFinishedOnce(
  accepted: { eventId: string; ticketIds: string[]; promises: string[] },
  signed: { tx_hash: string; nonce: string },
): Promise<void> {
  const signedHash = signed.tx_hash;
  await waitForLedgerStatus(chainApp.testApp, accepted.promises, "confirmed");
  const rows = await actionRows(chainApp.testApp, accepted.promises);
  expect(new Set(rows.map((row) => row.tx_hash))).toEqual(new Set([signedHash]));
  const statuses = await Promise.all(accepted.promises.slice(0, 3).map(async (promise) => (await chainApp.api.get(`/api/v1/actions/${promise}`)).body));
  expect(statuses.map((status) => [status.status, status.txHash])).toEqual(Array(3).fill(["confirmed", signedHash]));

  // No second attempt at the nonce: the same bytes went out again, or were already out.
  const attempts = (await chainTransactions(chainApp.testApp)).filter((tx) => tx.nonce === signed.nonce);
  expect(attempts.map((tx) => [tx.tx_hash, tx.status, tx.attempt])).toEqual([[signedHash, "confirmed", 1]]);

  const tokens = await tokenIds(chainApp.testApp, accepted.ticketIds);
  const eventIndex = await eventIndexOf(chainApp.testApp, accepted.eventId);
  const minted = (await mints(chainApp.chain)).filter((mint) => mint.tokenId >> 64n === eventIndex);
  expect(minted).toHaveLength(SALES);
  expect(new Set(minted.map((mint) => mint.tokenId))).toEqual(new Set(tokens.values()));
  expect(new Set(minted.map((mint) => mint.txHash))).toEqual(new Set([signedHash]));
  expect((await chainApp.chain.registry.eventRecord(eventIndex)).ticketsSold).toBe(BigInt(SALES));
  expect(await callbackRows(chainApp.testApp, accepted.promises)).toHaveLength(SALES + 1);
}

describe("a worker killed in the middle of a write", () => {
  it("after persisting the signed transaction, before broadcasting it: the restarted worker sends the same bytes, minting once", async () => {
    const signer = new Wallet(chainApp.chain.signerKeys[0]).address;
    const chainNonceBefore = await chainApp.chain.provider.getTransactionCount(signer);
    const mintsBefore = (await mints(chainApp.chain)).length;
    const accepted = await acceptEventAndSales();

    await diedBySigkill(startWorker("after-persist"));

    // Committed, not sent: one signed row carries every action, and the chain has not seen it.
    const [signed, ...others] = (await chainTransactions(chainApp.testApp)).filter((tx) => tx.status !== "confirmed");
    expect(others).toHaveLength(0);
    expect(signed).toMatchObject({ status: "signed", attempt: 1, item_count: SALES + 1, broadcast_at: null });
    expect(Number(signed.nonce)).toBe(chainNonceBefore);
    expect(await chainApp.chain.provider.getTransactionCount(signer)).toBe(chainNonceBefore);
    expect(await chainApp.chain.provider.getTransaction(signed.tx_hash)).toBeNull();
    expect((await mints(chainApp.chain)).length).toBe(mintsBefore);
    const rows = await actionRows(chainApp.testApp, accepted.promises);
    expect(rows.map((row) => [row.status, row.tx_hash])).toEqual(Array(SALES + 1).fill(["pending", signed.tx_hash]));

    startWorker();
    await expectFinishedOnce(accepted, signed);
    expect(await chainApp.chain.provider.getTransactionCount(signer)).toBe(chainNonceBefore + 1);
  }, 180_000);

  it("after broadcasting, before the receipt is recorded: the restarted worker finalizes the mined transaction without sending another", async () => {
    const signer = new Wallet(chainApp.chain.signerKeys[0]).address;
    const chainNonceBefore = await chainApp.chain.provider.getTransactionCount(signer);
    const accepted = await acceptEventAndSales();

    await diedBySigkill(startWorker("after-broadcast"));

    // Sent and mined (at once on an automining node, in the next block on one with a block time), but the ledger has not taken note of it yet.
    const [sent, ...others] = (await chainTransactions(chainApp.testApp)).filter((tx) => tx.status !== "confirmed");
    expect(others).toHaveLength(0);
    expect(sent).toMatchObject({ status: "broadcast", attempt: 1, item_count: SALES + 1 });
    expect(Number(sent.nonce)).toBe(chainNonceBefore);
    expect((await chainApp.chain.provider.waitForTransaction(sent.tx_hash, 1, 30_000))?.status).toBe(1);
    const rows = await actionRows(chainApp.testApp, accepted.promises);
    expect(rows.map((row) => row.status)).toEqual(Array(SALES + 1).fill("pending"));

    startWorker();
    await expectFinishedOnce(accepted, sent);
    expect(await chainApp.chain.provider.getTransactionCount(signer)).toBe(chainNonceBefore + 1);

    // Across both crashes: every sale of the file minted exactly once.
    const all = await mints(chainApp.chain);
    expect(new Set(all.map((mint) => mint.tokenId)).size).toBe(all.length);
    expect(all).toHaveLength(2 * SALES);
  }, 180_000);
});
