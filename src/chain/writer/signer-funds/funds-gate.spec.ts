import { Logger } from "@nestjs/common";
import type { JsonRpcProvider } from "ethers";
import type { Gauge } from "prom-client";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";

import type { ChainWriterQueue } from "../../queue/chain-writer.queue";
import type { Fees } from "../current-fees";
import type { FeeCapGuard } from "../fee-cap/fee-cap.guard";
import type { SignerProgress } from "../progress/signer-progress";
import type { RefusalsStore } from "../refusals/refusals.store";
import type { SignerSlot } from "../signer-slot";
import { FEES_OVER_CAP, FundsGate, shortOfFunds } from "./funds-gate";

const SIGNER = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8";
const slot = { wallet: { address: SIGNER }, shard: 2, shardCount: 3 } as SignerSlot;
const FEES = { maxFeePerGas: 10n, maxPriorityFeePerGas: 1n };

function fixture(market: { fees: Fees | null; balance: bigint }) {
  const ledger = { held: 0, released: 0 };
  const store = { hold: async () => ++ledger.held, release: async () => (ledger.released++, 0) } as unknown as RefusalsStore;
  const queue = { requestFlush: async () => undefined } as unknown as ChainWriterQueue;
  const waiting: (string | null)[] = [];
  const progress = { waitingFunds: (_: string, reason: string | null) => waiting.push(reason) } as unknown as SignerProgress;
  const feeCap = { fees: async () => market.fees } as unknown as FeeCapGuard;
  const gauge = { set: () => undefined } as unknown as Gauge<string>;
  const provider = { getBalance: async () => market.balance } as unknown as JsonRpcProvider;
  return { sut: new FundsGate(store, queue, progress, feeCap, gauge), provider, ledger, waiting };
}

beforeEach(() => {
  vi.spyOn(Logger.prototype, "warn").mockImplementation(() => undefined);
  vi.spyOn(Logger.prototype, "log").mockImplementation(() => undefined);
});

afterEach(() => vi.restoreAllMocks());

describe("FundsGate.check", () => {
  it("holds the signer's actions while fees are over MAX_FEE_PER_GAS_GWEI", async () => {
    const { sut, provider, ledger, waiting } = fixture({ fees: null, balance: 10n ** 18n });
    expect(await sut.check(provider, slot)).toEqual({ go: false, reason: FEES_OVER_CAP });
    expect(ledger.held).toBe(1);
    expect(waiting).toEqual([FEES_OVER_CAP]);
  });

  it("holds a signer found short of funds until its balance covers what its next transaction was found to cost, then releases it", async () => {
    const market = { fees: FEES, balance: 500n };
    const { sut, provider, ledger, waiting } = fixture(market);
    expect(await sut.holdFor(slot, 500n, 600n)).toEqual({ go: false, reason: shortOfFunds(500n, 600n) });

    expect(await sut.check(provider, slot)).toEqual({ go: false, reason: shortOfFunds(500n, 600n) });
    expect(ledger.held).toBe(2);

    market.balance = 600n;
    expect(await sut.check(provider, slot)).toEqual({ go: true, fees: FEES, balance: 600n });
    expect(ledger.released).toBe(1);
    expect(sut.neededWei(SIGNER)).toBeNull();
    expect(waiting.at(-1)).toBeNull();
  });
});
