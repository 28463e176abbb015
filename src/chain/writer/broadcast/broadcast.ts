import type { Logger } from "@nestjs/common";
import type { JsonRpcProvider } from "ethers";

import type { SignedTransaction } from "../signed-transaction";
import { classifyRefusal, nodeErrorMessage, type NodeRefusal } from "./node-refusal";

/** What came of one broadcast: whether the node has the transaction, and the class of its refusal if it answered one. */
export interface BroadcastResult {
  accepted: boolean;
  /** Null when the node accepted it, or when the request got no JSON-RPC answer (unreachable, timeout). */
  refusal: NodeRefusal | null;
}

/** Told of every broadcast's result (the signers' progress tracker: metrics, readiness). */
export interface BroadcastObserver {
  broadcastResult(tx: SignedTransaction, result: BroadcastResult): void;
}

/** The injection token of the BroadcastObserver: the broadcast side knows what it tells, not who listens. */
export const BROADCAST_OBSERVER = Symbol("BroadcastObserver");

/**
 * Sends raw bytes. Accepted when the node has the transaction (now or already: `already known`
 * counts as broadcast); otherwise it could not be reached or refused it, and the receipt watcher
 * responds to the refusal (see RefusalResponder). Called through TransactionSender. A refusal is classified (see classifyRefusal),
 * logged with its class and reported to the observer.
 */
export async function broadcastRaw(provider: JsonRpcProvider, tx: SignedTransaction, logger: Logger, observer: BroadcastObserver): Promise<BroadcastResult> {
  try {
    await provider.send("eth_sendRawTransaction", [tx.raw]);
    const result = { accepted: true, refusal: null };
    observer.broadcastResult(tx, result);
    return result;
  } catch (error) {
    const message = nodeErrorMessage(error);
    const refusal = message === null ? null : classifyRefusal(message);
    const context = { signer: tx.signer, nonce: tx.nonce.toString(), hash: tx.hash, refusal };
    if (refusal === "already known") {
      logger.log(context, `broadcast of ${tx.hash} (nonce ${tx.nonce}): the node already knows it`);
      const result = { accepted: true, refusal };
      observer.broadcastResult(tx, result);
      return result;
    }
    // The node may have it all the same (an answer lost on the way back, a refusal of bytes it already mined).
    const accepted = await provider.getTransaction(tx.hash).then(Boolean, () => false);
    observer.broadcastResult(tx, { accepted, refusal });
    if (!accepted) {
      const why = refusal === null ? "failed" : `refused by the node (${refusal})`;
      logger.warn(context, `broadcast of ${tx.hash} (nonce ${tx.nonce}) ${why}: ${message ?? (error as Error).message}`);
    }
    return { accepted, refusal };
  }
}
