import { Injectable } from "@nestjs/common";
import type { JsonRpcProvider } from "ethers";

import type { SignedTransaction } from "../signed-transaction";
import { BroadcastStore } from "./broadcast.store";

/**
 * Keeps a signer's nonces reaching the node in order: a transaction goes out only while every earlier
 * open nonce of its signer is mined (the ledger saw its receipt) or held by the node (it knows one of
 * its attempts by hash). An earlier nonce the node does not hold may yet be taken by another
 * transaction, given up, and its actions signed again at a later nonce: whatever a later nonce carries
 * (a sale of the event it registers, a check-in of the ticket it sells) would then be mined first.
 * Checked by hash, never by the node's count: a count cannot tell the signer's own transaction from
 * one signed elsewhere.
 */
@Injectable()
export class BroadcastOrder {
  constructor(private readonly store: BroadcastStore) {}

  /** Whether `tx` may go out now: it is still open (not given up meanwhile), and every earlier open nonce is mined or held. */
  async mayBroadcast(provider: JsonRpcProvider, tx: SignedTransaction): Promise<boolean> {
    const open = await this.store.openTransactions(tx.signer);
    if (!open.some((attempt) => attempt.id === tx.id)) return false;
    const earlier = open.filter((attempt) => attempt.nonce < tx.nonce);
    const byNonce = new Map<bigint, typeof earlier>();
    for (const open of earlier) byNonce.set(open.nonce, [...(byNonce.get(open.nonce) ?? []), open]);
    for (const attempts of byNonce.values()) {
      if (attempts.some((attempt) => attempt.status === "mined")) continue;
      if (!(await heldByNode(provider, attempts))) return false;
    }
    return true;
  }
}

/** Whether the node knows one of these attempts by hash. */
export async function heldByNode(provider: JsonRpcProvider, attempts: readonly SignedTransaction[]): Promise<boolean> {
  // The latest attempt first: a replacement supersedes the ones before it.
  for (const attempt of [...attempts].reverse()) if (await provider.getTransaction(attempt.hash)) return true;
  return false;
}
