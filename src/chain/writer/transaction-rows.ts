import type { EntityManager } from "typeorm";

import type { SignedTransaction } from "./signed-transaction";

/**
 * Writes a signed attempt, status `signed`: it is committed before anything is broadcast. A dropped
 * attempt with the very same bytes (a nonce taken back and signed again with the same batch and
 * fees) is the same transaction: its row gives way.
 */
export async function insertTransaction(manager: EntityManager, tx: SignedTransaction): Promise<void> {
  await manager.query(`DELETE FROM chain_transactions WHERE tx_hash = $1 AND status = 'dropped'`, [tx.hash]);
  await manager.query(
    `INSERT INTO chain_transactions (id, signer, chain_id, nonce, attempt, tx_hash, raw_tx, gas_limit, max_fee_per_gas, max_priority_fee_per_gas, item_count, status)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, 'signed')`,
    [
      tx.id,
      tx.signer,
      tx.chainId.toString(),
      tx.nonce.toString(),
      tx.attempt,
      tx.hash,
      tx.raw,
      tx.gasLimit.toString(),
      tx.maxFeePerGas.toString(),
      tx.maxPriorityFeePerGas.toString(),
      tx.itemCount,
    ],
  );
}

/** TypeORM answers an UPDATE ... RETURNING on PostgreSQL with [rows, count]. */
export function rowCount(result: unknown): number {
  return Array.isArray(result) && typeof result[1] === "number" ? result[1] : Array.isArray(result) ? result.length : 0;
}
