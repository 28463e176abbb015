import { Injectable } from "@nestjs/common";
import { InjectDataSource } from "@nestjs/typeorm";
import { DataSource } from "typeorm";

import type { OpenTransaction } from "../signed-transaction";
import { toOpenTransaction, type TransactionRow } from "../transaction-rows";

/**
 * What every sender of signed transactions reads and writes in the ledger: each signer's open
 * attempts (signed, broadcast, or mined and not yet final) and their broadcast.
 */
@Injectable()
export class BroadcastStore {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** Attempts not yet final, by nonce then attempt. */
  async openTransactions(signer: string): Promise<OpenTransaction[]> {
    const rows = await this.dataSource.query<TransactionRow[]>(
      `SELECT * FROM chain_transactions WHERE signer = $1 AND status IN ('signed', 'broadcast', 'mined') ORDER BY nonce, attempt`,
      [signer],
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

  /**
   * The gas limits of the signer's nonces from `fromNonce` on that went out (broadcast, or seen
   * mined at a block the node may since have dropped): what the node holds for it in its pool when
   * `fromNonce` is its count of the signer's mined transactions. A nonce counts once (its largest attempt).
   */
  async gasSentFrom(signer: string, fromNonce: bigint): Promise<bigint> {
    const [row] = await this.dataSource.query<{ gas: string | null }[]>(
      `SELECT sum(gas)::text AS gas FROM (
         SELECT max(gas_limit) AS gas FROM chain_transactions WHERE signer = $1 AND nonce >= $2 AND status IN ('broadcast', 'mined') GROUP BY nonce) sent`,
      [signer, fromNonce.toString()],
    );
    return BigInt(row.gas ?? 0);
  }

  async markBroadcast(id: string): Promise<void> {
    await this.dataSource.query(
      `UPDATE chain_transactions SET status = 'broadcast', broadcast_at = now(), updated_at = now() WHERE id = $1 AND status = 'signed'`,
      [id],
    );
  }
}
