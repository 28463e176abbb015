import { Injectable } from "@nestjs/common";
import { InjectDataSource } from "@nestjs/typeorm";
import { DataSource } from "typeorm";

export interface SignerUsage {
  /** Gas used by the signer's finalized transactions signed since the given time. */
  gas: Map<string, bigint>;
  /** The nonce the writer signs with next, per signer that has written. */
  nextNonces: Map<string, number>;
}

/** What the signer funds monitor reads from the ledger: how much each signer has been spending. */
@Injectable()
export class SignerUsageStore {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /**
   * Every signer's recent gas and next nonce in one statement. Transaction ids are UUIDv7, ordered
   * by creation time, so "since" is a range of the primary key: the scan covers the recent rows
   * only, however long the history.
   */
  async usageSince(since: Date): Promise<SignerUsage> {
    const rows = await this.dataSource.query<{ address: string; next_nonce: string; gas: string }[]>(
      `SELECT s.address, s.next_nonce::text AS next_nonce, COALESCE(g.gas, 0)::text AS gas
         FROM chain_signers s
         LEFT JOIN (SELECT signer, sum(gas_used) AS gas FROM chain_transactions WHERE id >= $1::uuid AND gas_used IS NOT NULL GROUP BY signer) g
           ON g.signer = s.address`,
      [uuidv7Floor(since.getTime())],
    );
    return {
      gas: new Map(rows.map((row) => [row.address, BigInt(row.gas)])),
      nextNonces: new Map(rows.map((row) => [row.address, Number(row.next_nonce)])),
    };
  }
}

/** The smallest UUIDv7 of millisecond `ms`: every id created at or after `ms` sorts after it. */
export function uuidv7Floor(ms: number): string {
  const time = Math.max(0, Math.floor(ms)).toString(16).padStart(12, "0");
  return `${time.slice(0, 8)}-${time.slice(8)}-7000-8000-000000000000`;
}
