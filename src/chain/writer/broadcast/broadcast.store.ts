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
  /**
   * Each signer's open attempts' bytes, by id, as last read. An attempt's bytes never change, and a
   * batch's are about 220 kB of hex: the watcher and every broadcast read all open attempts, which at
   * CONFIRMATIONS=12 meant megabytes a pass, so each attempt's bytes are read once.
   */
  private readonly bytesRead = new Map<string, Map<string, string>>();

  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** Attempts not yet final, by nonce then attempt. */
  async openTransactions(signer: string): Promise<OpenTransaction[]> {
    const known = this.bytesRead.get(signer) ?? new Map<string, string>();
    const rows = await this.dataSource.query<TransactionRow[]>(
      `SELECT id, signer, chain_id, nonce, attempt, tx_hash, gas_limit, max_fee_per_gas, max_priority_fee_per_gas, item_count, status,
              broadcast_at, created_at, block_number, block_hash, CASE WHEN id = ANY($2::uuid[]) THEN NULL ELSE raw_tx END AS raw_tx
         FROM chain_transactions WHERE signer = $1 AND status IN ('signed', 'broadcast', 'mined') ORDER BY nonce, attempt`,
      [signer, [...known.keys()]],
    );
    const open = rows.map((row) => toOpenTransaction({ ...row, raw_tx: row.raw_tx ?? known.get(row.id) ?? null }));
    this.bytesRead.set(signer, new Map(open.map((tx) => [tx.id, tx.raw])));
    return open;
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
   * The gas limit of every open nonce that went out (broadcast, or seen mined at a block the node
   * may since have dropped), of every signer in the ledger: what the node may hold in its pool for
   * this ledger. A nonce counts once (its largest attempt); the caller leaves out the nonces the
   * node has mined by now.
   */
  async gasSent(): Promise<{ signer: string; nonce: bigint; gas: bigint }[]> {
    const rows = await this.dataSource.query<{ signer: string; nonce: string; gas: string }[]>(
      `SELECT signer, nonce::text AS nonce, max(gas_limit)::text AS gas FROM chain_transactions WHERE status IN ('broadcast', 'mined') GROUP BY signer, nonce`,
    );
    return rows.map((row) => ({ signer: row.signer, nonce: BigInt(row.nonce), gas: BigInt(row.gas) }));
  }

  async markBroadcast(id: string): Promise<void> {
    await this.dataSource.query(
      `UPDATE chain_transactions SET status = 'broadcast', broadcast_at = now(), updated_at = now() WHERE id = $1 AND status = 'signed'`,
      [id],
    );
  }
}
