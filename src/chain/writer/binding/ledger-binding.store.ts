import { Injectable } from "@nestjs/common";
import { InjectDataSource } from "@nestjs/typeorm";
import { DataSource } from "typeorm";

/** The registry a ledger writes to: its chain, its address and its deployment block. */
export interface RegistryTarget {
  chainId: bigint;
  registryAddress: string;
  fromBlock: bigint;
}

/** What the ledger binding reads and writes in the ledger. */
@Injectable()
export class LedgerBindingStore {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** The registry the ledger is bound to; null before its first write. */
  async bound(): Promise<RegistryTarget | null> {
    const [row] = await this.dataSource.query<{ chain_id: string; registry_address: string; from_block: string }[]>(
      `SELECT chain_id::text, registry_address, from_block::text FROM ledger_binding`,
    );
    return row ? { chainId: BigInt(row.chain_id), registryAddress: row.registry_address, fromBlock: BigInt(row.from_block) } : null;
  }

  /** Binds the ledger to `target` unless it is bound already (another worker first): the binding that holds. */
  async bind(target: RegistryTarget): Promise<RegistryTarget> {
    await this.dataSource.query(`INSERT INTO ledger_binding (chain_id, registry_address, from_block) VALUES ($1, $2, $3) ON CONFLICT (id) DO NOTHING`, [
      target.chainId.toString(),
      target.registryAddress,
      target.fromBlock.toString(),
    ]);
    return (await this.bound()) as RegistryTarget;
  }

  /** Whether the ledger ever signed a transaction: a ledger from before bindings were recorded has. */
  async hasWritten(): Promise<boolean> {
    const [row] = await this.dataSource.query<{ written: boolean }[]>(`SELECT EXISTS (SELECT 1 FROM chain_transactions) AS written`);
    return row.written;
  }

  /**
   * The lowest event index this ledger would write first: its lowest event's, or, with none yet, the
   * one registry_event_index_seq gives next (read without taking it).
   */
  async firstEventIndex(): Promise<bigint> {
    const [row] = await this.dataSource.query<{ index: string }[]>(
      `SELECT COALESCE((SELECT min(event_index) FROM events),
                       (SELECT CASE WHEN is_called THEN last_value + 1 ELSE last_value END FROM registry_event_index_seq))::text AS index`,
    );
    return BigInt(row.index);
  }
}
