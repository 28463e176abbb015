import { Injectable } from "@nestjs/common";
import { InjectDataSource } from "@nestjs/typeorm";
import { DataSource } from "typeorm";

/** The event indexes and serials the ledger has handed out: no token of the registry lies beyond them. */
export interface LedgerExtent {
  /** The highest event index handed out (the index sequence's last value), 0 before the first. */
  highestEventIndex: bigint;
  /** Each of the ledger's events: its index and the last serial handed out to its tickets. */
  lastSerials: Map<bigint, bigint>;
}

/**
 * Reads the ledger's extent once per reset of the token metadata's view of the chain (at start and
 * after a reorg), never per request: one row per event.
 */
@Injectable()
export class LedgerExtentStore {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  async extent(): Promise<LedgerExtent> {
    const [events, [sequence]] = await Promise.all([
      this.dataSource.query<{ event_index: string; last_serial: string }[]>(`SELECT event_index::text, last_serial::text FROM events`),
      this.dataSource.query<{ last: string }[]>(`SELECT (CASE WHEN is_called THEN last_value ELSE 0 END)::text AS last FROM registry_event_index_seq`),
    ]);
    const lastSerials = new Map(events.map((row) => [BigInt(row.event_index), BigInt(row.last_serial)]));
    const highestEventIndex = [...lastSerials.keys()].reduce((highest, index) => (index > highest ? index : highest), BigInt(sequence?.last ?? 0));
    return { highestEventIndex, lastSerials };
  }
}
