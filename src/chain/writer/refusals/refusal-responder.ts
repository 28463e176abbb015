import { Injectable } from "@nestjs/common";
import type { JsonRpcProvider } from "ethers";

import type { BroadcastResult } from "../broadcast/broadcast";
import type { NodeRefusal } from "../broadcast/node-refusal";
import { RetryBackOff } from "../broadcast/retry-back-off";
import { FeeBumper } from "../fee-bump/fee-bumper";
import type { OpenTransaction } from "../signed-transaction";
import type { SignerSlot } from "../signer-slot";
import { FundsGate } from "../signer-funds/funds-gate";
import { LearnedLimits } from "./learned-limits";
import { NonceTakeBack } from "./nonce-take-back";
import { responseTo } from "./refusal-response";

/**
 * Does what a node's refusal calls for (see RefusalResponse), for the receipt watcher: bumps the
 * fees, takes back the signer's last nonces to plan them smaller or to wait for funds (see
 * NonceTakeBack), and otherwise tries the same bytes again later and later (see RetryBackOff). A
 * nonce another transaction took is given up by TakenNonces.
 */
@Injectable()
export class RefusalResponder {
  constructor(
    private readonly backOff: RetryBackOff,
    private readonly limits: LearnedLimits,
    private readonly funds: FundsGate,
    private readonly bumper: FeeBumper,
    private readonly nonces: NonceTakeBack,
  ) {}

  /** Responds to a broadcast's result (nothing to do when the node accepted it). */
  async respond(provider: JsonRpcProvider, slot: SignerSlot, tx: OpenTransaction, result: BroadcastResult): Promise<void> {
    if (result.accepted) {
      this.backOff.clear(tx.signer);
      return;
    }
    this.backOff.refused(tx.signer);
    const response = responseTo(result.refusal);
    if (response === "bump") await this.bump(provider, slot, tx, `refused (${result.refusal})`);
    else if (response === "replan" && result.refusal) await this.replan(provider, slot, tx, result.refusal);
    else if (response === "wait_for_funds") await this.waitForFunds(provider, slot, tx);
  }

  private async bump(provider: JsonRpcProvider, slot: SignerSlot, tx: OpenTransaction, why: string): Promise<void> {
    const result = await this.bumper.replace(provider, slot.wallet, tx, why);
    // Over the fee cap: nothing was sent; the writer holds the signer's queue until fees drop.
    if (result === null) await this.funds.hold(tx.signer, slot.shard, slot.shardCount, "a replacement would exceed MAX_FEE_PER_GAS_GWEI", null);
    else if (result.accepted) this.backOff.clear(tx.signer);
  }

  /**
   * A batch above the floor goes back to be planned within what the node taught; a lone item above
   * it fails as an item. At the floor the refusal teaches nothing: the same bytes go again later.
   */
  private async replan(provider: JsonRpcProvider, slot: SignerSlot, tx: OpenTransaction, refusal: NodeRefusal): Promise<void> {
    const why = `refused (${refusal})`;
    if (tx.itemCount === 1 && this.limits.aboveFloor(tx, refusal))
      await this.nonces.takeBack(provider, slot, tx, "waiting_broadcast", why, { failAlone: true });
    else if (tx.itemCount > 1 && this.limits.aboveFloor(tx, refusal)) {
      // Learned only when the nonces are taken back, so one refused batch teaches once.
      const learn = () => this.limits.learn(tx, refusal);
      await this.nonces.takeBack(provider, slot, tx, "waiting_broadcast", `${why}: planned again within smaller limits`, { learn });
    }
  }

  private async waitForFunds(provider: JsonRpcProvider, slot: SignerSlot, tx: OpenTransaction): Promise<void> {
    const needed = tx.gasLimit * tx.maxFeePerGas;
    const balance = await provider.getBalance(tx.signer, "pending");
    const reason = `the node refused nonce ${tx.nonce} for funds: balance ${balance} wei, the transaction may cost ${needed} wei`;
    await this.nonces.takeBack(provider, slot, tx, "waiting_funds", reason);
    await this.funds.hold(tx.signer, slot.shard, slot.shardCount, reason, needed);
  }
}
