import { Injectable, Logger } from "@nestjs/common";
import type { JsonRpcProvider } from "ethers";

import { heldByNode } from "../broadcast/broadcast-order";
import { BroadcastStore } from "../broadcast/broadcast.store";
import { SignerNonceGuard } from "../reconcile/signer-nonce-guard";
import type { OpenTransaction } from "../signed-transaction";
import { SignerLocks } from "../signer-locks";
import { RefusalsStore } from "./refusals.store";

/** Passes in a row that must find a nonce taken by another transaction before its actions are given back. */
const TAKEN_SIGHTINGS = 2;

/**
 * Gives up a nonce another transaction took: the chain counts it at the confirmed depth and the
 * node knows none of its attempts, on TAKEN_SIGHTINGS passes in a row. Every later nonce the node
 * does not hold is taken back with it (a later one sent first would carry actions ahead of what
 * they depend on), their actions wait again in acceptance order, and the signer stops until it is
 * reconciled (its key is used elsewhere).
 */
@Injectable()
export class TakenNonces {
  private readonly logger = new Logger(TakenNonces.name);
  private readonly sightings = new Map<string, number>();

  constructor(
    private readonly store: RefusalsStore,
    private readonly open: BroadcastStore,
    private readonly locks: SignerLocks,
    private readonly nonceGuard: SignerNonceGuard,
  ) {}

  /** True when the nonce of these attempts was given up as taken by another transaction. */
  async givenUp(provider: JsonRpcProvider, attempts: OpenTransaction[], confirmedCount: number): Promise<boolean> {
    const nonce = attempts[0].nonce;
    const signer = attempts[0].signer;
    const key = `${signer}:${nonce}`;
    if (nonce >= BigInt(confirmedCount) || (await heldByNode(provider, attempts))) {
      this.sightings.delete(key);
      return false;
    }
    const sightings = (this.sightings.get(key) ?? 0) + 1;
    this.sightings.set(key, sightings);
    if (sightings < TAKEN_SIGHTINGS) return false;
    // Under the writer's lock: no batch is signed while the later nonces are taken back.
    const lock = await this.locks.tryAcquire(`writer:${signer}`);
    if (!lock) return false;
    let chainCount: number;
    let requeued: number;
    let withdrawFrom: bigint | null;
    try {
      this.sightings.delete(key);
      chainCount = await provider.getTransactionCount(signer, "pending");
      withdrawFrom = await this.unheldTailFrom(provider, signer, nonce);
      requeued = await this.store.giveUpTakenNonce(signer, nonce, BigInt(chainCount), withdrawFrom);
    } finally {
      await lock.release();
    }
    const tail = withdrawFrom === null ? "" : ` with the later nonces from ${withdrawFrom}`;
    this.logger.warn(
      { signer, nonce: nonce.toString(), chainCount, withdrawFrom: withdrawFrom?.toString() ?? null },
      `nonce ${nonce} of ${signer} was taken by another transaction: given up${tail}, ${requeued} actions wait again`,
    );
    await this.nonceGuard.stop(signer, {
      ledgerNonce: nonce.toString(),
      chainNonce: chainCount.toString(),
      displacedHashes: attempts.map((attempt) => attempt.hash),
      reason: `nonce ${nonce} was taken by a transaction the ledger does not know (the chain counts ${chainCount})`,
    });
    return true;
  }

  /** The first of the open nonces after `nonce` from which on the node holds none (null when it holds the last one, or there is none). */
  private async unheldTailFrom(provider: JsonRpcProvider, signer: string, nonce: bigint): Promise<bigint | null> {
    const later = (await this.open.openTransactions(signer)).filter((open) => open.nonce > nonce);
    const nonces = [...new Set(later.map((open) => open.nonce))].sort((a, b) => (a < b ? 1 : a > b ? -1 : 0));
    let from: bigint | null = null;
    for (const candidate of nonces) {
      if (
        await heldByNode(
          provider,
          later.filter((open) => open.nonce === candidate),
        )
      )
        break;
      from = candidate;
    }
    return from;
  }
}
