import type { Logger } from "@nestjs/common";
import type { JsonRpcProvider } from "ethers";

import type { SignedTransaction } from "../signed-transaction";

/**
 * Sends raw bytes. True when the node has the transaction (now or already); false when it could not
 * be reached or refused it, in which case the receipt watcher sends the same bytes again later.
 */
export async function broadcastRaw(provider: JsonRpcProvider, tx: SignedTransaction, logger: Logger): Promise<boolean> {
  try {
    await provider.send("eth_sendRawTransaction", [tx.raw]);
    return true;
  } catch (error) {
    if (await provider.getTransaction(tx.hash).then(Boolean, () => false)) return true;
    logger.warn(
      { signer: tx.signer, nonce: tx.nonce.toString(), hash: tx.hash },
      `broadcast of ${tx.hash} (nonce ${tx.nonce}) failed, will retry: ${(error as Error).message}`,
    );
    return false;
  }
}
