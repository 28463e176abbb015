import { Logger } from "@nestjs/common";
import type { JsonRpcProvider } from "ethers";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";

import { TicketRegistry__factory } from "../../../../typechain-types";
import type { ChainClient } from "../../chain-client";
import type { LedgerBinding } from "../binding/ledger-binding";
import type { UnsentNonces } from "../broadcast/unsent-nonces";
import type { SignerNonceGuard } from "../reconcile/signer-nonce-guard";
import type { GateAnswer } from "../gate-answer";
import type { FundsGate, SpendableFunds } from "../signer-funds/funds-gate";
import type { SignerSlot } from "../signer-slot";
import type { BatchPlan } from "./batch-plan";
import { FlushGates, HOLD_REASONS } from "./flush-gates";
import type { SendingStore } from "./sending.store";

const SIGNER = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8";
const REGISTRY = "0x5FbDB2315678afecb367f032d93F642f64180aa3";
const registry = TicketRegistry__factory.createInterface();
const slot = { wallet: { address: SIGNER }, shard: 0, shardCount: 1 } as SignerSlot;
const FEES = { maxFeePerGas: 10n, maxPriorityFeePerGas: 1n };

/** Every gate open unless told otherwise; `asked` records which gates were reached, in order. */
function gates(overrides: { bound?: boolean; maySign?: boolean; paused?: boolean; funds?: GateAnswer<SpendableFunds>; unsentSent?: boolean } = {}) {
  const asked: string[] = [];
  const held: bigint[] = [];
  const binding = {
    allowsWriting: async () => (asked.push("binding"), overrides.bound ?? true),
    verdict: { allowed: false, reason: "the ledger is bound to registry 0xaa on chain 1, not 0xbb on chain 2" },
  } as unknown as LedgerBinding;
  const store = {
    ensureSigner: async (signer: string, chainId: bigint, chainNonce: bigint) => void asked.push(`ensure ${chainNonce}`),
  } as unknown as SendingStore;
  const nonceGuard = { maySign: async () => (asked.push("nonce"), overrides.maySign ?? true) } as unknown as SignerNonceGuard;
  const chain = { chainId: async () => 31337n, registry, registryAddress: REGISTRY } as unknown as ChainClient;
  const funds = {
    check: async () => (asked.push("funds"), overrides.funds ?? { go: true, fees: FEES, balance: 1_000n }),
    holdFor: async (_: SignerSlot, balance: bigint, cost: bigint) => (held.push(cost), { go: false, reason: `balance ${balance}, cost ${cost}` }),
  } as unknown as FundsGate;
  const unsent = { sendAll: async () => (asked.push("unsent"), overrides.unsentSent ?? true) } as unknown as UnsentNonces;
  const provider = {
    getTransactionCount: async () => 7,
    call: async () => registry.encodeFunctionResult("paused", [overrides.paused ?? false]),
  } as unknown as JsonRpcProvider;
  return { sut: new FlushGates(chain, binding, store, nonceGuard, funds, unsent), provider, asked, held };
}

beforeEach(() => {
  vi.spyOn(Logger.prototype, "warn").mockImplementation(() => undefined);
});

afterEach(() => vi.restoreAllMocks());

describe("FlushGates.check", () => {
  it("says go with the fees and balance to spend once every gate passed, asked in order", async () => {
    const { sut, provider, asked } = gates();
    expect(await sut.check(provider, slot)).toEqual({ go: true, fees: FEES, balance: 1_000n });
    expect(asked).toEqual(["binding", "ensure 7", "nonce", "funds", "unsent"]);
  });

  it("holds, with the binding's reason, while the ledger is bound to another registry, before anything is read or written", async () => {
    const { sut, provider, asked } = gates({ bound: false });
    expect(await sut.check(provider, slot)).toEqual({ go: false, reason: "the ledger is bound to registry 0xaa on chain 1, not 0xbb on chain 2" });
    expect(asked).toEqual(["binding"]);
  });

  it("holds a stopped signer", async () => {
    const { sut, provider, asked } = gates({ maySign: false });
    expect(await sut.check(provider, slot)).toEqual({ go: false, reason: HOLD_REASONS.stopped });
    expect(asked).toEqual(["binding", "ensure 7", "nonce"]);
  });

  it("holds while the registry is paused", async () => {
    const { sut, provider, asked } = gates({ paused: true });
    expect(await sut.check(provider, slot)).toEqual({ go: false, reason: HOLD_REASONS.paused });
    expect(asked).not.toContain("funds");
  });

  it("holds with the funds gate's reason: fees over the cap, or a balance short of the next transaction", async () => {
    const { sut, provider, asked } = gates({ funds: { go: false, reason: "fees above MAX_FEE_PER_GAS_GWEI" } });
    expect(await sut.check(provider, slot)).toEqual({ go: false, reason: "fees above MAX_FEE_PER_GAS_GWEI" });
    expect(asked).not.toContain("unsent");
  });

  it("holds while an earlier nonce signed before is not sent", async () => {
    const { sut, provider } = gates({ unsentSent: false });
    expect(await sut.check(provider, slot)).toEqual({ go: false, reason: HOLD_REASONS.unsent });
  });
});

describe("FlushGates.checkBatch", () => {
  const plan = (gasLimit: number) => ({ gasLimit }) as BatchPlan;

  it("spends each batch's gas limit × max fee from the flush's balance, and holds the signer once it does not cover the next", async () => {
    const { sut, provider, held } = gates();
    const funds = { fees: FEES, balance: 1_000n };
    expect(await sut.checkBatch(provider, slot, plan(60), funds)).toEqual({ go: true });
    expect(funds.balance).toBe(400n);
    expect(await sut.checkBatch(provider, slot, plan(60), funds)).toEqual({ go: false, reason: "balance 400, cost 600" });
    expect(funds.balance).toBe(400n);
    expect(held).toEqual([600n]);
  });

  it("holds a signer stopped while the flush waited for its batch", async () => {
    const { sut, provider } = gates({ maySign: false });
    expect(await sut.checkBatch(provider, slot, plan(1), { fees: FEES, balance: 1_000n })).toEqual({ go: false, reason: HOLD_REASONS.stopped });
  });
});
