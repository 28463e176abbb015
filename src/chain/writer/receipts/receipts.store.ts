import { Injectable } from "@nestjs/common";
import { InjectDataSource } from "@nestjs/typeorm";
import { DataSource } from "typeorm";

import type { FinalAttempt } from "../signed-transaction";
import { toFinalAttempt, type TransactionRow } from "../transaction-rows";

/**
 * What the receipt watcher reads and writes in the ledger while a nonce is open: where its attempts
 * were mined, and what was mined at nonces a node lost. The open attempts themselves are the
 * broadcast side's (see BroadcastStore).
 */
@Injectable()
export class ReceiptsStore {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** The attempt each of these nonces ended with (confirmed or reverted), by nonce: what was mined at that nonce. */
  async finalAttempts(signer: string, fromNonce: bigint, toNonce: bigint): Promise<FinalAttempt[]> {
    const rows = await this.dataSource.query<TransactionRow[]>(
      `SELECT * FROM chain_transactions WHERE signer = $1 AND nonce >= $2 AND nonce < $3 AND status IN ('confirmed', 'reverted') ORDER BY nonce`,
      [signer, fromNonce.toString(), toNonce.toString()],
    );
    return rows.map(toFinalAttempt);
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
