import { Injectable } from "@nestjs/common";
import { InjectDataSource } from "@nestjs/typeorm";
import { DataSource } from "typeorm";

/** A transaction the ledger sent that wrote a token's metadata hash. */
export interface MetadataWrite {
  txHash: string;
  status: string;
}

/** The actions that write a ticket's metadata hash on chain: its updates, and its sale when it went with its metadata. */
const METADATA_ACTIONS = `(a.kind = 'updateTicket' OR (a.kind = 'sold' AND a.payload->>'action' = 'soldWithMetadata'))`;

/**
 * Where on chain to look for a token's latest metadata record: the registry's TicketsMetadataUpdated
 * log does not index the tokenId, so the ledger names the transactions instead of a log scan.
 */
@Injectable()
export class MetadataWritesStore {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** The token's latest metadata writes that went out (a few, newest first: the newest may not be mined yet). */
  async sentWrites(tokenId: bigint, limit = 3): Promise<MetadataWrite[]> {
    return this.dataSource.query<MetadataWrite[]>(
      `SELECT a.tx_hash AS "txHash", a.status FROM chain_actions a JOIN tickets t ON t.id = a.ticket_ref
        WHERE t.token_id = $1 AND t.released_at IS NULL AND ${METADATA_ACTIONS} AND a.tx_hash IS NOT NULL AND a.status IN ('pending', 'confirmed')
        ORDER BY a.seq DESC LIMIT $2`,
      [tokenId.toString(), limit],
    );
  }

  /** Whether a metadata write of the token waits for the writer or for its transaction. */
  async writeOnItsWay(tokenId: bigint): Promise<boolean> {
    const [row] = await this.dataSource.query<{ waiting: boolean }[]>(
      `SELECT EXISTS (SELECT 1 FROM chain_actions a JOIN tickets t ON t.id = a.ticket_ref
        WHERE t.token_id = $1 AND t.released_at IS NULL AND ${METADATA_ACTIONS} AND a.status IN ('waiting_broadcast', 'waiting_funds', 'pending')) AS waiting`,
      [tokenId.toString()],
    );
    return row?.waiting ?? false;
  }
}
