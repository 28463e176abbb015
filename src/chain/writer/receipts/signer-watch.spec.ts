import type { JsonRpcProvider } from "ethers";
import { describe, expect, it } from "vitest";

import type { ChainWriterQueue } from "../../queue/chain-writer.queue";
import type { ChainSigner } from "../../signers";
import type { BroadcastStore } from "../broadcast/broadcast.store";
import type { SignerProgress } from "../progress/signer-progress";
import type { OpenTransaction, TransactionStatus } from "../signed-transaction";
import type { Confirmations } from "./confirmations";
import type { LostTransactions } from "./lost-transactions";
import { signedTransaction, TEST_SIGNER as SIGNER } from "../../../../test/support/signed-transactions";
import { SignerWatch } from "./signer-watch";
import type { UnminedNonces } from "./unmined-nonces";

const BLOCK_5 = `0x${"b".repeat(64)}`;

function attempt(nonce: bigint, status: TransactionStatus): OpenTransaction {
  const minedIn = status === "mined" ? { blockNumber: 5, blockHash: BLOCK_5 } : null;
  return { ...signedTransaction(nonce), status, broadcastAt: new Date(), createdAt: new Date(), minedIn };
}

interface Pass {
  flushes: string[];
  receiptsRead: number;
}

/**
 * A pass over open nonces whose receipts the node has, in block 5, while only block 2 counts as
 * confirmed (not deep enough); the flushes it asked for and the receipts it read. The node's block 5
 * is `canonicalBlock5`.
 */
async function watchedPass(open: OpenTransaction[], { finalizes = false, canonicalBlock5 = BLOCK_5 } = {}): Promise<Pass> {
  const flushes: string[] = [];
  let receiptsRead = 0;
  const store = { openTransactions: async () => open } as unknown as BroadcastStore;
  const lost = { resend: async () => undefined } as unknown as LostTransactions;
  const confirmations = { confirmedThrough: async () => 2, onMined: async () => finalizes } as unknown as Confirmations;
  const unmined = { forget: () => undefined } as unknown as UnminedNonces;
  const progress = { oldestUnmined: () => undefined } as unknown as SignerProgress;
  const queue = { requestFlush: async (reason: string) => void flushes.push(reason) } as unknown as ChainWriterQueue;
  const provider = {
    send: async (_: string, [hash]: [string]) => {
      receiptsRead += 1;
      return { transactionHash: hash, status: "0x1", blockNumber: "0x5", blockHash: BLOCK_5, gasUsed: "0x1", logs: [] };
    },
    getBlock: async (number: number) => (number === 5 ? { hash: canonicalBlock5 } : null),
  } as unknown as JsonRpcProvider;
  const sut = new SignerWatch(store, lost, confirmations, unmined, progress, queue);
  await sut.pass(provider, { wallet: { address: SIGNER } as ChainSigner, shard: 0, shardCount: 1 });
  return { flushes, receiptsRead };
}

const passOver = async (open: OpenTransaction[], finalizes = false) => (await watchedPass(open, { finalizes })).flushes;

describe("SignerWatch", () => {
  it("asks for a flush when it first sees a nonce mined, however far from final: a mined batch holds no in-flight slot", async () => {
    expect(await passOver([attempt(0n, "broadcast")])).toEqual(["capacity"]);
  });

  it("asks for none for a nonce it saw mined before and that is still not deep enough: no slot was freed", async () => {
    expect(await passOver([attempt(0n, "mined")])).toEqual([]);
  });

  it("asks for a flush when a nonce is finalized", async () => {
    const deepEnough = { ...attempt(0n, "mined"), minedIn: { blockNumber: 2, blockHash: BLOCK_5 } };
    expect(await passOver([deepEnough], true)).toEqual(["capacity"]);
  });

  it("reads no receipt of a nonce already seen mined in a block still canonical and not deep enough, and reads the others'", async () => {
    const pass = await watchedPass([attempt(0n, "mined"), attempt(1n, "mined"), attempt(2n, "broadcast")]);
    expect(pass.receiptsRead).toBe(1);
  });

  it("reads the receipt again when the block it was seen mined in is no longer the canonical one (a reorg)", async () => {
    const pass = await watchedPass([attempt(0n, "mined")], { canonicalBlock5: `0x${"c".repeat(64)}` });
    expect(pass.receiptsRead).toBe(1);
  });
});
