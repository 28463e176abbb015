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

function attempt(nonce: bigint, status: TransactionStatus): OpenTransaction {
  return { ...signedTransaction(nonce), status, broadcastAt: new Date(), createdAt: new Date() };
}

/**
 * A pass over one open nonce whose receipt the node has, in block 5, while only block 2 counts as
 * confirmed (not deep enough); the flushes it asked for.
 */
async function passOver(open: OpenTransaction[], finalizes = false): Promise<string[]> {
  const flushes: string[] = [];
  const store = { openTransactions: async () => open } as unknown as BroadcastStore;
  const lost = { resend: async () => undefined } as unknown as LostTransactions;
  const confirmations = { confirmedThrough: async () => 2, onMined: async () => finalizes } as unknown as Confirmations;
  const unmined = { forget: () => undefined } as unknown as UnminedNonces;
  const progress = { oldestUnmined: () => undefined } as unknown as SignerProgress;
  const queue = { requestFlush: async (reason: string) => void flushes.push(reason) } as unknown as ChainWriterQueue;
  const provider = {
    send: async (_: string, [hash]: [string]) => ({
      transactionHash: hash,
      status: "0x1",
      blockNumber: "0x5",
      blockHash: `0x${"b".repeat(64)}`,
      gasUsed: "0x1",
      logs: [],
    }),
  } as unknown as JsonRpcProvider;
  const sut = new SignerWatch(store, lost, confirmations, unmined, progress, queue);
  await sut.pass(provider, { wallet: { address: SIGNER } as ChainSigner, shard: 0, shardCount: 1 });
  return flushes;
}

describe("SignerWatch", () => {
  it("asks for a flush when it first sees a nonce mined, however far from final: a mined batch holds no in-flight slot", async () => {
    expect(await passOver([attempt(0n, "broadcast")])).toEqual(["capacity"]);
  });

  it("asks for none for a nonce it saw mined before and that is still not deep enough: no slot was freed", async () => {
    expect(await passOver([attempt(0n, "mined")])).toEqual([]);
  });

  it("asks for a flush when a nonce is finalized", async () => {
    expect(await passOver([attempt(0n, "mined")], true)).toEqual(["capacity"]);
  });
});
