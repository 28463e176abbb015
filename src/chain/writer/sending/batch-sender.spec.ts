import type { JsonRpcProvider } from "ethers";
import { afterEach, describe, expect, it } from "vitest";

import { loadConfig } from "../../../config/app-config";
import type { ChainClient } from "../../chain-client";
import type { ChainSigner } from "../../signers";
import { RetryBackOff } from "../broadcast/retry-back-off";
import type { TransactionSender } from "../broadcast/transaction-sender";
import type { SignedTransaction } from "../signed-transaction";
import { signedTransaction, TEST_SIGNER as SIGNER } from "../../../../test/support/signed-transactions";
import { BatchSender } from "./batch-sender";
import { CrashPoints } from "./crash-points";
import type { SendingStore } from "./sending.store";

const FEES = { maxFeePerGas: 10n, maxPriorityFeePerGas: 1n };
function committed(nonce: bigint): SignedTransaction {
  return signedTransaction(nonce, { itemCount: 0 });
}

const PLAN = { actions: [], plannedGas: [], gasLimit: 100_000, full: false };

/** A sender whose order check fails as a destroyed provider's request does; `sent` records what reached the node. */
function failingOrderCheck() {
  const config = loadConfig({});
  let nonce = 0n;
  const store = { commitNewTransaction: async () => committed(nonce++), countNoncesInFlight: async () => 0 } as unknown as SendingStore;
  const chain = { registryAddress: "0x5FbDB2315678afecb367f032d93F642f64180aa3" } as unknown as ChainClient;
  const sent: bigint[] = [];
  const transactions = {
    inOrder: async () => Promise.reject(new Error("provider destroyed; cancelled request")),
    send: async (_: JsonRpcProvider, tx: SignedTransaction) => (sent.push(tx.nonce), { accepted: true, refusal: null }),
  } as unknown as TransactionSender;
  const sut = new BatchSender(store, chain, transactions, new RetryBackOff(config), new CrashPoints(config), config);
  const sending = sut.start({} as JsonRpcProvider, { address: SIGNER } as ChainSigner, 31337n, FEES, 30_000_000n);
  return { sut, sending, sent };
}

/**
 * A node that mines a block when told, and a ledger of what was sent: each batch has `gasLimit`
 * gas, the block `blockGasLimit`. `sent` records the nonces that reached the node, in order.
 */
function nodeWithBlocks(gasLimit: bigint, blockGasLimit: bigint) {
  const config = loadConfig({});
  let nonce = 0n;
  let minedCount = 0n;
  const sent: bigint[] = [];
  const store = {
    commitNewTransaction: async () => ({ ...committed(nonce++), gasLimit }),
    countNoncesInFlight: async () => sent.length - Number(minedCount),
  } as unknown as SendingStore;
  const transactions = {
    inOrder: async () => true,
    // The gas of what was sent and not yet mined, against the block's.
    poolHasRoom: async () => gasLimit * BigInt(sent.filter((n) => n >= minedCount).length) < blockGasLimit,
    send: async (_: JsonRpcProvider, tx: SignedTransaction) => (sent.push(tx.nonce), { accepted: true, refusal: null }),
  } as unknown as TransactionSender;
  const chain = { registryAddress: "0x5FbDB2315678afecb367f032d93F642f64180aa3" } as unknown as ChainClient;
  const sut = new BatchSender(store, chain, transactions, new RetryBackOff(config), new CrashPoints(config), config);
  sut.poolHold = { pollMs: 5, maxMs: 200 };
  const sending = sut.start({} as JsonRpcProvider, { address: SIGNER } as ChainSigner, 31337n, FEES, blockGasLimit);
  /** The node mines everything sent so far. */
  const mine = () => (minedCount = BigInt(sent.length));
  return { sut, sending, sent, mine };
}

/**
 * Several signers' flushes on one BatchSender (one worker process) and one node whose blocks they
 * share: each batch has `gasLimit` gas, the block `blockGasLimit`. `sent` records what reached the
 * node as signer:nonce, in order. The pool's gas is read with a pause before it answers, as a
 * database and a node do, so two looks at once would both see the same room.
 */
function sharedNode(signers: string[], gasLimit: bigint, blockGasLimit: bigint) {
  const config = loadConfig({});
  const nonces = new Map(signers.map((signer) => [signer, 0n]));
  const sent: string[] = [];
  let minedCount = 0;
  const store = {
    commitNewTransaction: async (signer: string) => {
      const nonce = nonces.get(signer)!;
      nonces.set(signer, nonce + 1n);
      return { ...committed(nonce), id: `${signer}-${nonce}`, signer, gasLimit };
    },
    countNoncesInFlight: async () => 0,
  } as unknown as SendingStore;
  let maxInPool = 0n;
  const transactions = {
    inOrder: async () => true,
    poolHasRoom: async (_: JsonRpcProvider, limit: bigint) => {
      const inPool = gasLimit * BigInt(sent.length - minedCount);
      await new Promise((resolve) => setTimeout(resolve, 2));
      return inPool < limit;
    },
    send: async (_: JsonRpcProvider, tx: SignedTransaction) => {
      sent.push(`${tx.signer}:${tx.nonce}`);
      const inPool = gasLimit * BigInt(sent.length - minedCount);
      if (inPool > maxInPool) maxInPool = inPool;
      return { accepted: true, refusal: null };
    },
  } as unknown as TransactionSender;
  const chain = { registryAddress: "0x5FbDB2315678afecb367f032d93F642f64180aa3" } as unknown as ChainClient;
  const sut = new BatchSender(store, chain, transactions, new RetryBackOff(config), new CrashPoints(config), config);
  sut.poolHold = { pollMs: 5, maxMs: 500 };
  const flushes = signers.map((signer) => sut.start({} as JsonRpcProvider, { address: signer } as ChainSigner, 31337n, FEES, blockGasLimit));
  return { sut, flushes, sent, mine: () => (minedCount = sent.length), maxInPool: () => maxInPool };
}

const until = async (condition: () => boolean) => {
  for (let i = 0; i < 200 && !condition(); i++) await new Promise((resolve) => setTimeout(resolve, 5));
};

const unhandled: unknown[] = [];
const recordUnhandled = (reason: unknown) => unhandled.push(reason);

afterEach(() => {
  process.off("unhandledRejection", recordUnhandled);
  unhandled.length = 0;
});

describe("BatchSender", () => {
  it("keeps a broadcast's failure until the flush settles, never as an unhandled rejection while the flush prepares its next batch", async () => {
    process.on("unhandledRejection", recordUnhandled);
    const { sut, sending, sent } = failingOrderCheck();

    await sut.send(sending, PLAN);
    // The flush reads the ledger for its next batch meanwhile: long enough for Node to see a rejection nobody handles.
    await new Promise((resolve) => setTimeout(resolve, 20));

    expect(unhandled).toEqual([]);
    expect(await sut.hasRoom(sending)).toBe(false);
    await expect(sut.settled(sending)).rejects.toThrow("provider destroyed");
    expect(sent).toEqual([]);
  });

  it("sends nothing more of the flush after a failed broadcast", async () => {
    const { sut, sending, sent } = failingOrderCheck();
    await sut.send(sending, PLAN);
    await sut.send(sending, PLAN);

    await expect(sut.settled(sending)).rejects.toThrow("provider destroyed");
    expect(sent).toEqual([]);
  });

  it("sends no more than a block's gas while the node has not mined, then the rest once it has, in nonce order", async () => {
    // Three batches of 10M gas sent: not yet a 25M block's worth, so a fourth waits, signed and committed, for the next block.
    const { sut, sending, sent, mine } = nodeWithBlocks(10_000_000n, 25_000_000n);
    for (let i = 0; i < 5; i++) await sut.send(sending, PLAN);
    await until(() => sent.length === 3);
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(sent).toEqual([0n, 1n, 2n]);

    mine();
    await sut.settled(sending);
    expect(sent).toEqual([0n, 1n, 2n, 3n, 4n]);
  });

  it("lets the next batch be planned only once the last one signed has room in the pool, so a batch is never chosen long before it can go out", async () => {
    // Two 10M batches go into the pool of a 15M block; the third is held for the next block, and no fourth is planned behind it meanwhile.
    const { sut, sending, sent, mine } = nodeWithBlocks(10_000_000n, 15_000_000n);
    sut.poolHold = { pollMs: 5, maxMs: 60_000 };
    for (let i = 0; i < 2; i++) {
      await sut.send(sending, PLAN);
      expect(await sut.hasRoom(sending)).toBe(true);
    }
    await sut.send(sending, PLAN);
    let answered = false;
    const room = sut.hasRoom(sending).then((answer) => ((answered = true), answer));
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect([answered, sent]).toEqual([false, [0n, 1n]]);

    mine();
    expect(await room).toBe(true);
    expect(sent).toEqual([0n, 1n, 2n]);
    sut.beforeApplicationShutdown();
    await sut.settled(sending);
  });

  it("stops sending when no block comes within the hold: the batch stays signed for the next flush, nothing after it goes out", async () => {
    const { sut, sending, sent } = nodeWithBlocks(10_000_000n, 15_000_000n);
    for (let i = 0; i < 4; i++) await sut.send(sending, PLAN);

    await sut.settled(sending);
    expect(sent).toEqual([0n, 1n]);
    expect(await sut.hasRoom(sending)).toBe(false);
  });

  it("leaves a held batch signed when the process stops, instead of holding the stop", async () => {
    const { sut, sending, sent } = nodeWithBlocks(10_000_000n, 15_000_000n);
    sut.poolHold = { pollMs: 5, maxMs: 60_000 };
    for (let i = 0; i < 3; i++) await sut.send(sending, PLAN);
    await until(() => sent.length === 2);

    sut.beforeApplicationShutdown();
    await sut.settled(sending);
    expect(sent).toEqual([0n, 1n]);
  });

  it("keeps no more than a block's gas in the pool for all the signers together, each signer's batches in nonce order", async () => {
    // 10M batches, a 25M block: three sent in all (the third may or may not fit), not three per signer.
    const { sut, flushes, sent, mine, maxInPool } = sharedNode(["a", "b", "c"], 10_000_000n, 25_000_000n);
    for (let i = 0; i < 3; i++) for (const sending of flushes) await sut.send(sending, PLAN);
    await until(() => sent.length === 3);
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(sent).toHaveLength(3);

    for (let block = 0; block < 3; block++) {
      mine();
      await until(() => sent.length === Math.min(9, 3 * (block + 2)));
    }
    await Promise.all(flushes.map((sending) => sut.settled(sending)));
    expect(maxInPool()).toBe(30_000_000n);
    for (const signer of ["a", "b", "c"]) expect(sent.filter((tx) => tx.startsWith(signer))).toEqual([`${signer}:0`, `${signer}:1`, `${signer}:2`]);
    // Turns in the order the batches came: each signer's first before any signer's second.
    expect(sent.slice(0, 3)).toEqual(["a:0", "b:0", "c:0"]);
  });

  it("lets two signers' broadcasts that look for room at the same moment take it one after the other", async () => {
    // Room for one more: without turns both would see it and send.
    const { sut, flushes, sent, maxInPool } = sharedNode(["a", "b"], 10_000_000n, 10_000_000n);
    await Promise.all(flushes.map((sending) => sut.send(sending, PLAN)));
    await until(() => sent.length === 1);
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(sent).toEqual(["a:0"]);
    expect(maxInPool()).toBe(10_000_000n);
  });

  it("stops every signer's flush held behind a chain that mines nothing, within the hold and when the process stops", async () => {
    const { sut, flushes, sent } = sharedNode(["a", "b"], 10_000_000n, 15_000_000n);
    for (const sending of flushes) for (let i = 0; i < 2; i++) await sut.send(sending, PLAN);
    const started = Date.now();
    await until(() => sent.length === 2);
    sut.beforeApplicationShutdown();
    await Promise.all(flushes.map((sending) => sut.settled(sending)));
    expect(Date.now() - started).toBeLessThan(400);
    expect(sent).toEqual(["a:0", "b:0"]);
    for (const sending of flushes) expect(await sut.hasRoom(sending)).toBe(false);
  });
});
