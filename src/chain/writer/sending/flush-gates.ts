import { Injectable, Logger } from "@nestjs/common";
import type { JsonRpcProvider } from "ethers";

import { ChainClient } from "../../chain-client";
import { LedgerBinding } from "../binding/ledger-binding";
import { UnsentNonces } from "../broadcast/unsent-nonces";
import type { GateAnswer } from "../gate-answer";
import { SignerNonceGuard } from "../reconcile/signer-nonce-guard";
import { FundsGate, type SpendableFunds } from "../signer-funds/funds-gate";
import type { SignerSlot } from "../signer-slot";
import type { BatchPlan } from "./batch-plan";
import { SendingStore } from "./sending.store";

export const HOLD_REASONS = {
  stopped: "the signer is stopped: the chain holds nonces the ledger does not know",
  paused: "the registry is paused",
  unsent: "an earlier nonce is not sent yet (refused, backing off, or behind one the node does not hold)",
} as const;

/**
 * Everything that must hold before a flush signs, in this order: the ledger is bound to this
 * registry (see LedgerBinding), the signer's nonces are the ledger's (see SignerNonceGuard), the
 * registry is not paused, the signer can pay at fees under the cap (see FundsGate), and its nonces
 * signed earlier and never sent went out first (see UnsentNonces). Each gate that holds says why,
 * and those that hold actions (funds, fees) arrange the next look themselves.
 */
@Injectable()
export class FlushGates {
  private readonly logger = new Logger(FlushGates.name);

  constructor(
    private readonly chain: ChainClient,
    private readonly binding: LedgerBinding,
    private readonly store: SendingStore,
    private readonly nonceGuard: SignerNonceGuard,
    private readonly funds: FundsGate,
    private readonly unsent: UnsentNonces,
  ) {}

  /** Whether the signer's flush may sign now; go carries the fees and the balance it may spend. */
  async check(provider: JsonRpcProvider, slot: SignerSlot): Promise<GateAnswer<SpendableFunds>> {
    const signer = slot.wallet.address;
    // Nothing is signed or sent to a registry that is not the ledger's.
    if (!(await this.binding.allowsWriting(provider))) return { go: false, reason: this.bindingRefusal() };
    const chainId = await this.chain.chainId();
    // The chain's count before the ledger's nonce (see SignerNonceGuard): then the chain ahead is not ours.
    const chainPending = BigInt(await provider.getTransactionCount(signer, "pending"));
    await this.store.ensureSigner(signer, chainId, chainPending);
    if (!(await this.nonceGuard.maySign(signer, chainPending))) return { go: false, reason: HOLD_REASONS.stopped };
    if (await this.registryPaused(provider)) {
      this.logger.warn("the registry is paused: actions wait until it is unpaused");
      return { go: false, reason: HOLD_REASONS.paused };
    }
    const funds = await this.funds.check(provider, slot);
    if (!funds.go) return funds;
    // Nonces refused before go first, in order: the lock this flush holds would keep the watcher from sending them.
    if (!(await this.unsent.sendAll(provider, signer))) return { go: false, reason: HOLD_REASONS.unsent };
    return funds;
  }

  /** Whether the next batch may be signed; a go spends its cost (gas limit × max fee) from `funds`. */
  async checkBatch(provider: JsonRpcProvider, slot: SignerSlot, plan: BatchPlan, funds: SpendableFunds): Promise<GateAnswer> {
    const signer = slot.wallet.address;
    // Again before each batch: the key may be used elsewhere while this flush waits for a batch to fill.
    if (!(await this.nonceGuard.maySign(signer, BigInt(await provider.getTransactionCount(signer, "pending"))))) {
      return { go: false, reason: HOLD_REASONS.stopped };
    }
    const cost = BigInt(plan.gasLimit) * funds.fees.maxFeePerGas;
    if (funds.balance < cost) return this.funds.holdFor(slot, funds.balance, cost);
    funds.balance -= cost;
    return { go: true };
  }

  private bindingRefusal(): string {
    const verdict = this.binding.verdict;
    return verdict && !verdict.allowed ? verdict.reason : "the ledger is not bound to this registry";
  }

  private async registryPaused(provider: JsonRpcProvider): Promise<boolean> {
    const data = this.chain.registry.encodeFunctionData("paused");
    const result = await provider.call({ to: this.chain.registryAddress, data });
    return this.chain.registry.decodeFunctionResult("paused", result)[0] as boolean;
  }
}
