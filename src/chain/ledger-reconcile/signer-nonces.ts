import type { JsonRpcProvider } from "ethers";
import type { DataSource } from "typeorm";

import { fetchReceipt } from "../writer/receipts/mined-receipt";

/** What reconciling one signer changed in the ledger. */
export interface SignerNonceChange {
  address: string;
  /** The ledger's next nonce before and after; equal when it was not behind the chain. */
  nextNonce: { from: bigint; to: bigint } | null;
  /** The ledger's own transactions found mined, by hash. */
  foundMined: string[];
}

/**
 * Puts one signer's ledger past what the chain holds: the ledger's open transactions whose nonce the
 * chain has passed are looked up by hash and marked mined where found (the receipt watcher confirms
 * them as usual), and the ledger's next nonce becomes the chain's pending nonce if it was behind.
 * An open transaction not found stays open: the watcher sees its nonce taken and sends its actions again.
 */
export async function reconcileSignerNonce(dataSource: DataSource, provider: JsonRpcProvider, address: string): Promise<SignerNonceChange> {
  const [row] = await dataSource.query<{ next_nonce: string }[]>(`SELECT next_nonce::text FROM chain_signers WHERE address = $1`, [address]);
  if (!row) return { address, nextNonce: null, foundMined: [] };
  const [mined, pending] = await Promise.all([provider.getTransactionCount(address, "latest"), provider.getTransactionCount(address, "pending")]);
  const open = await dataSource.query<{ id: string; tx_hash: string }[]>(
    `SELECT id, tx_hash FROM chain_transactions WHERE signer = $1 AND status IN ('signed', 'broadcast') AND nonce < $2 ORDER BY nonce, attempt`,
    [address, mined],
  );
  const foundMined: string[] = [];
  for (const attempt of open) {
    const receipt = await fetchReceipt(provider, attempt.tx_hash);
    if (!receipt) continue;
    await dataSource.query(
      `UPDATE chain_transactions SET status = 'mined', block_number = $2, block_hash = $3, gas_used = $4, updated_at = now()
        WHERE id = $1 AND status IN ('signed', 'broadcast')`,
      [attempt.id, receipt.blockNumber, receipt.blockHash, receipt.gasUsed.toString()],
    );
    foundMined.push(attempt.tx_hash);
  }
  const moved = await dataSource.query<[{ from: string }[], number]>(
    `UPDATE chain_signers AS s SET next_nonce = $2, updated_at = now() FROM chain_signers AS x
      WHERE s.address = x.address AND s.address = $1 AND x.next_nonce < $2 RETURNING x.next_nonce::text AS from`,
    [address, pending],
  );
  const from = moved[0][0]?.from;
  return { address, nextNonce: from === undefined ? null : { from: BigInt(from), to: BigInt(pending) }, foundMined };
}
