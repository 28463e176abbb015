import type { JsonRpcProvider } from "ethers";
import { afterEach, describe, expect, it } from "vitest";

import { loadConfig } from "../../../config/app-config";
import type { ChainClient } from "../../chain-client";
import type { ChainSigner } from "../../signers";
import { RetryBackOff } from "../broadcast/retry-back-off";
import type { TransactionSender } from "../broadcast/transaction-sender";
import type { SignedTransaction } from "../signed-transaction";
import { BatchSender } from "./batch-sender";
import { CrashPoints } from "./crash-points";
import type { SendingStore } from "./sending.store";

const SIGNER = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8";
const FEES = { maxFeePerGas: 10n, maxPriorityFeePerGas: 1n };
const PLAN = { actions: [], gasLimit: 100_000, full: false };

function committed(nonce: bigint): SignedTransaction {
  const hash = `0x${nonce.toString(16).padStart(64, "0")}`;
  return {
    id: `tx-${nonce}`,
    signer: SIGNER,
    chainId: 31337n,
    nonce,
    attempt: 1,
    hash,
    raw: "0x02",
    gasLimit: 100_000n,
    maxFeePerGas: 10n,
    maxPriorityFeePerGas: 1n,
    itemCount: 0,
  };
}

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
  const sending = sut.start({} as JsonRpcProvider, { address: SIGNER } as ChainSigner, 31337n, FEES);
  return { sut, sending, sent };
}

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
});
