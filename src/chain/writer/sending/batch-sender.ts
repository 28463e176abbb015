import { type BeforeApplicationShutdown, Injectable } from "@nestjs/common";
import type { JsonRpcProvider } from "ethers";

import type { AppConfig } from "../../../config/app-config";
import { InjectConfig } from "../../../config/config.module";
import { ChainClient } from "../../chain-client";
import type { ChainSigner } from "../../signers";
import { RetryBackOff } from "../broadcast/retry-back-off";
import { TransactionSender } from "../broadcast/transaction-sender";
import type { Fees } from "../current-fees";
import type { CarriedAction, SignedTransaction } from "../signed-transaction";
import { signBatch } from "../transaction-signer";
import type { BatchPlan } from "./batch-plan";
import { CrashPoints } from "./crash-points";
import { encodedItemOf } from "./pending-action";
import { SendingStore } from "./sending.store";

/** The broadcasts of one flush: the latest (each waits for the one before), and whether one was refused, held back or failed. */
export interface FlushSending {
  readonly wallet: ChainSigner;
  readonly provider: JsonRpcProvider;
  readonly chainId: bigint;
  readonly fees: Fees;
  /** The chain's block gas limit when the flush began: the most the ledger's signers together keep in the node's pool (see BatchSender). */
  readonly blockGasLimit: bigint;
  previous: Promise<void>;
  /** Settles once the latest batch's broadcast has room in the node's pool, or will not be sent by this flush. */
  admitted: Promise<void>;
  refused: boolean;
  /** Whether the earlier open nonces were seen mined or held by the node (checked before the flush's first broadcast). */
  ordered: boolean;
  /** Why a broadcast failed (the node or the database unreachable, the provider closed at shutdown): rethrown once the flush settles. */
  failure?: Error;
}

/** How often a broadcast held for room in the next block looks again, and how long it is held at most. */
export interface PoolHold {
  pollMs: number;
  maxMs: number;
}

/**
 * Signs a flush's batches and commits each with its actions before it is broadcast, takes the
 * signer's next nonce from the database, and broadcasts them one after the other while the next
 * batch is prepared. Each broadcast starts once the one before it has returned, so nonces reach the
 * node in order (an automining node refuses a nonce from the future); after a refusal nothing more
 * is signed: the receipt watcher answers it first.
 *
 * A broadcast also waits while the transactions sent and not yet mined, of every signer in the
 * ledger, already hold a block's gas limit: a node mines no more than that per block, whoever
 * signed, and one that finds a transaction too large for what is left of a block may drop its
 * signer's next nonce from its pool (Anvil skips the one, then finds the next one's nonce too high
 * and removes it), which the receipt watcher sends again only seconds later. Counted per signer,
 * N signers kept up to N blocks' worth in the pool and met that drop. Gas limits are estimates
 * above the gas used, so the last transaction let through may or may not fit the next block; none
 * follows it in the pool. The process's broadcasts look for room and send one at a time, in the
 * order they asked, so two signers' flushes never both take the last room and none waits behind
 * the others for long; processes do not wait for each other, so each worker process may let one
 * batch more through at the same moment.
 * Held, the batch is signed and committed already and goes out as soon as a block is mined. Held
 * longer than `poolHold.maxMs` (a chain that mines nothing), or when the process stops, the flush
 * stops sending: the batch stays signed, and the next flush, or the watcher, sends it (see UnsentNonces).
 */
@Injectable()
export class BatchSender implements BeforeApplicationShutdown {
  constructor(
    private readonly store: SendingStore,
    private readonly chain: ChainClient,
    private readonly transactions: TransactionSender,
    private readonly backOff: RetryBackOff,
    private readonly crashPoints: CrashPoints,
    @InjectConfig() private readonly config: AppConfig,
  ) {}

  /** Overridden by tests only. */
  poolHold: PoolHold = { pollMs: 100, maxMs: 10_000 };
  /** Set at shutdown: a held batch is left signed for the next start instead of keeping the flush (and the stop) waiting. */
  private stopping = false;
  /** The last broadcast of any flush of this process to look for room in the pool: the next one waits for it (see the class). */
  private poolTurn: Promise<unknown> = Promise.resolve();

  beforeApplicationShutdown(): void {
    this.stopping = true;
  }

  start(provider: JsonRpcProvider, wallet: ChainSigner, chainId: bigint, fees: Fees, blockGasLimit: bigint): FlushSending {
    return {
      wallet,
      provider,
      chainId,
      fees,
      blockGasLimit,
      previous: Promise.resolve(),
      admitted: Promise.resolve(),
      refused: false,
      ordered: false,
      failure: undefined,
    };
  }

  /**
   * Whether another batch may be signed, once the last one signed has room in the node's pool: nothing
   * was refused, and fewer than MAX_IN_FLIGHT_PER_SIGNER nonces are signed or sent and not yet mined
   * (a mined one, however far from final, holds no slot: see SendingStore.countNoncesInFlight). A batch is planned only
   * when the one before it can go out, never while it is held: what a batch carries is chosen as late
   * as it can be, so an action accepted meanwhile (another organization's, say) goes in the next
   * batch to be mined rather than behind batches signed ahead (see fairOrder).
   */
  async hasRoom(sending: FlushSending): Promise<boolean> {
    await sending.admitted;
    return !sending.refused && (await this.store.countNoncesInFlight(sending.wallet.address)) < this.config.chain.writer.maxInFlightPerSigner;
  }

  /** Signs and commits the batch; its broadcast follows the previous one's. Returns what was committed. */
  async send(sending: FlushSending, plan: BatchPlan): Promise<SignedTransaction & { carried: CarriedAction[] }> {
    const batch = {
      chainId: sending.chainId,
      registryAddress: this.chain.registryAddress,
      items: plan.actions.map(encodedItemOf),
      gasLimit: BigInt(plan.gasLimit),
    };
    const { wallet, fees } = sending;
    const signed = await this.store.commitNewTransaction(
      wallet.address,
      plan.actions,
      (nonce) => signBatch(wallet, this.chain.registry, batch, nonce, fees),
      plan.plannedGas,
    );
    this.crashPoints.reach("after-persist");
    let admit = () => {};
    sending.admitted = new Promise<void>((resolve) => (admit = resolve));
    sending.previous = sending.previous
      .then(() => this.broadcast(sending, signed, admit))
      .catch((error: unknown) => {
        // Caught at once, not when the flush settles: the flush awaits other work meanwhile, and a
        // rejection nobody handles by then ends the process. Nothing more goes out after a failure.
        sending.refused = true;
        sending.failure ??= error instanceof Error ? error : new Error(String(error));
      })
      .finally(admit);
    return signed;
  }

  /** Settles once every broadcast of the flush has returned (the flush holds its lock until then); rejects with a broadcast's failure. */
  async settled(sending: FlushSending): Promise<void> {
    await sending.previous;
    if (sending.failure !== undefined) throw sending.failure;
  }

  /** Sends the batch after the one before it; `admit` is called once it has room in the pool (or will not go out). */
  private async broadcast(sending: FlushSending, signed: SignedTransaction, admit: () => void): Promise<void> {
    if (sending.refused) return;
    // Held back while an earlier nonce is neither mined nor in the node: the watcher sends it once it may.
    if (!sending.ordered && !(await this.transactions.inOrder(sending.provider, signed))) {
      sending.refused = true;
      return;
    }
    sending.ordered = true;
    // The hold counts from here: behind another flush's held broadcast, this one is held as long.
    const heldUntil = Date.now() + this.poolHold.maxMs;
    const turn = this.poolTurn.then(() => this.sendWhenRoom(sending, signed, heldUntil, admit));
    this.poolTurn = turn.catch(() => undefined);
    await turn;
    this.crashPoints.reach("after-broadcast");
  }

  /** Sends once the pool has room; on its turn (see the class), so no other flush of the process sends between the look and the send. */
  private async sendWhenRoom(sending: FlushSending, signed: SignedTransaction, heldUntil: number, admit: () => void): Promise<void> {
    if (!(await this.roomInPool(sending, heldUntil))) {
      sending.refused = true;
      return;
    }
    // The next batch may be planned now, while this one goes out.
    admit();
    const result = await this.transactions.send(sending.provider, signed);
    if (!result.accepted) {
      sending.refused = true;
      this.backOff.refusedToWriter(signed, result);
    }
  }

  /** Waits while every signer's transactions in the node's pool hold a block's gas limit; false when held too long. */
  private async roomInPool(sending: FlushSending, heldUntil: number): Promise<boolean> {
    for (;;) {
      if (await this.transactions.poolHasRoom(sending.provider, sending.blockGasLimit)) return true;
      if (this.stopping || Date.now() >= heldUntil) return false;
      await new Promise((resolve) => setTimeout(resolve, this.poolHold.pollMs));
    }
  }
}
