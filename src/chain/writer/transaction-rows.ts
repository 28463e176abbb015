import type { EntityManager } from "typeorm";

import type { FinalAttempt, OpenTransaction, SignedTransaction, TransactionStatus } from "./signed-transaction";

/** A chain_transactions row as `SELECT *` reads it. */
export interface TransactionRow {
  id: string;
  signer: string;
  chain_id: string;
  nonce: string;
  attempt: number;
  tx_hash: string;
  /** Null once the transaction is final and RAW_TX_RETENTION_HOURS old (src/retention): an open attempt always has its bytes. */
  raw_tx: string | null;
  gas_limit: string;
  max_fee_per_gas: string;
  max_priority_fee_per_gas: string;
  item_count: number;
  status: TransactionStatus;
  broadcast_at: Date | null;
  created_at: Date;
  block_number: string | null;
  block_hash: string | null;
}

/** An attempt that is open (signed, broadcast or mined): retention never clears its bytes. */
export function toOpenTransaction(row: TransactionRow): OpenTransaction {
  if (row.raw_tx === null) throw new Error(`transaction ${row.tx_hash} has no bytes kept: it is final, not open`);
  return { ...withoutBytes(row), raw: row.raw_tx };
}

/** A final attempt (confirmed or reverted), with its bytes while retention keeps them. */
export function toFinalAttempt(row: TransactionRow): FinalAttempt {
  return { ...withoutBytes(row), raw: row.raw_tx };
}

function withoutBytes(row: TransactionRow): Omit<OpenTransaction, "raw"> {
  return {
    id: row.id,
    signer: row.signer,
    chainId: BigInt(row.chain_id),
    nonce: BigInt(row.nonce),
    attempt: row.attempt,
    hash: row.tx_hash,
    gasLimit: BigInt(row.gas_limit),
    maxFeePerGas: BigInt(row.max_fee_per_gas),
    maxPriorityFeePerGas: BigInt(row.max_priority_fee_per_gas),
    itemCount: row.item_count,
    status: row.status,
    broadcastAt: row.broadcast_at,
    createdAt: row.created_at,
    minedIn: row.block_number !== null && row.block_hash !== null ? { blockNumber: Number(row.block_number), blockHash: row.block_hash } : null,
  };
}

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
