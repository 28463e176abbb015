import { Injectable } from "@nestjs/common";
import { InjectDataSource } from "@nestjs/typeorm";
import { DataSource } from "typeorm";

import type { OpenTransaction, TransactionStatus } from "../signed-transaction";

interface TransactionRow {
  id: string;
  signer: string;
  chain_id: string;
  nonce: string;
  attempt: number;
  tx_hash: string;
  raw_tx: string;
  gas_limit: string;
  max_fee_per_gas: string;
  max_priority_fee_per_gas: string;
  item_count: number;
  status: TransactionStatus;
  broadcast_at: Date | null;
  created_at: Date;
}

/** What the receipt watcher reads and writes in the ledger while a nonce is open: its attempts and where they were mined. */
@Injectable()
export class ReceiptsStore {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** Attempts not yet final, by nonce then attempt. */
  async openTransactions(signer: string): Promise<OpenTransaction[]> {
    const rows = await this.dataSource.query<TransactionRow[]>(
      `SELECT * FROM chain_transactions WHERE signer = $1 AND status IN ('signed', 'broadcast', 'mined') ORDER BY nonce, attempt`,
      [signer],
    );
    return rows.map(toOpenTransaction);
  }

  /** The attempt each of these nonces ended with (confirmed or reverted), by nonce: what was mined at that nonce. */
  async finalAttempts(signer: string, fromNonce: bigint, toNonce: bigint): Promise<OpenTransaction[]> {
    const rows = await this.dataSource.query<TransactionRow[]>(
      `SELECT * FROM chain_transactions WHERE signer = $1 AND nonce >= $2 AND nonce < $3 AND status IN ('confirmed', 'reverted') ORDER BY nonce`,
      [signer, fromNonce.toString(), toNonce.toString()],
    );
    return rows.map(toOpenTransaction);
  }

  /** The latest attempt of each open nonce that was never broadcast (refused, or its worker died first), oldest nonce first. */
  async unsentTransactions(signer: string): Promise<OpenTransaction[]> {
    const rows = await this.dataSource.query<TransactionRow[]>(
      `SELECT * FROM (SELECT DISTINCT ON (nonce) * FROM chain_transactions WHERE signer = $1 AND status IN ('signed', 'broadcast', 'mined') ORDER BY nonce, attempt DESC) latest
        WHERE status = 'signed' ORDER BY nonce`,
      [signer],
    );
    return rows.map(toOpenTransaction);
  }

  /** Whether this attempt is still signed and never broadcast. */
  async stillUnsent(id: string): Promise<boolean> {
    const rows = await this.dataSource.query<unknown[]>(`SELECT 1 FROM chain_transactions WHERE id = $1 AND status = 'signed'`, [id]);
    return rows.length > 0;
  }

  async markMined(id: string, blockNumber: number, blockHash: string): Promise<void> {
    await this.dataSource.query(
      `UPDATE chain_transactions SET status = 'mined', block_number = $2, block_hash = $3, updated_at = now() WHERE id = $1 AND status IN ('signed', 'broadcast', 'mined')`,
      [id, blockNumber, blockHash],
    );
  }

  /** A receipt that vanished (a reorg): the transaction is waiting to be mined again, sent again now. */
  async markUnmined(id: string): Promise<void> {
    await this.dataSource.query(
      `UPDATE chain_transactions SET status = 'broadcast', block_number = NULL, block_hash = NULL, broadcast_at = now(), updated_at = now() WHERE id = $1 AND status = 'mined'`,
      [id],
    );
  }
}

function toOpenTransaction(row: TransactionRow): OpenTransaction {
  return {
    id: row.id,
    signer: row.signer,
    chainId: BigInt(row.chain_id),
    nonce: BigInt(row.nonce),
    attempt: row.attempt,
    hash: row.tx_hash,
    raw: row.raw_tx,
    gasLimit: BigInt(row.gas_limit),
    maxFeePerGas: BigInt(row.max_fee_per_gas),
    maxPriorityFeePerGas: BigInt(row.max_priority_fee_per_gas),
    itemCount: row.item_count,
    status: row.status,
    broadcastAt: row.broadcast_at,
    createdAt: row.created_at,
  };
}
