import { Injectable } from "@nestjs/common";
import { InjectDataSource } from "@nestjs/typeorm";
import { DataSource } from "typeorm";

import { rowCount } from "../transaction-rows";

/** What was seen when a signer stopped: the ledger's next nonce, the chain's count, and the hashes involved. */
export interface StopDetail {
  /** The next nonce the ledger would have signed. */
  ledgerNonce: string;
  /** The chain's count of the signer's transactions (pending) when it was seen. */
  chainNonce: string;
  /** The ledger's own transactions at the nonces the chain took otherwise (neither mined nor known to the node). */
  displacedHashes: string[];
  reason: string;
}

export interface SignerStop extends StopDetail {
  signer: string;
  since: Date;
}

/** The signer's ledger nonce and, while it is stopped, why. */
export interface SignerNonceState {
  nextNonce: bigint;
  stop: SignerStop | null;
}

interface StopRow {
  address: string;
  next_nonce: string;
  stopped_at: Date | null;
  stop_detail: StopDetail | null;
}

/**
 * The signers stopped because the chain took nonces with transactions the ledger does not know: kept
 * on their chain_signers row, so a restarted worker stays stopped until the signer is reconciled.
 */
@Injectable()
export class SignerStopsStore {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** Null for a signer that never wrote. */
  async stateOf(signer: string): Promise<SignerNonceState | null> {
    const [row] = await this.dataSource.query<StopRow[]>(`SELECT address, next_nonce, stopped_at, stop_detail FROM chain_signers WHERE address = $1`, [signer]);
    return row ? { nextNonce: BigInt(row.next_nonce), stop: stopOf(row) } : null;
  }

  /** Every stopped signer, oldest stop first. */
  async stopped(): Promise<SignerStop[]> {
    const rows = await this.dataSource.query<StopRow[]>(
      `SELECT address, next_nonce, stopped_at, stop_detail FROM chain_signers WHERE stopped_at IS NOT NULL ORDER BY stopped_at`,
    );
    return rows.map(stopOf).filter((stop): stop is SignerStop => stop !== null);
  }

  /** Stops the signer; the first stop's detail is kept until it is reconciled. True when it was not stopped yet. */
  async stop(signer: string, detail: StopDetail): Promise<boolean> {
    const result: unknown = await this.dataSource.query(
      `UPDATE chain_signers SET stopped_at = now(), stop_detail = $2, updated_at = now() WHERE address = $1 AND stopped_at IS NULL`,
      [signer, JSON.stringify(detail)],
    );
    return rowCount(result) > 0;
  }
}

function stopOf(row: StopRow): SignerStop | null {
  if (!row.stopped_at || !row.stop_detail) return null;
  return { signer: row.address, since: row.stopped_at, ...row.stop_detail };
}
