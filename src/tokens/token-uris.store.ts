import { Injectable } from "@nestjs/common";
import { InjectDataSource } from "@nestjs/typeorm";
import { DataSource } from "typeorm";

/**
 * The one fact of token metadata that is the ledger's: a ticket's `uri` (soldTicket or updateTicket),
 * which never goes on chain. Read for every answer, so that a changed uri shows at once.
 */
@Injectable()
export class TokenUrisStore {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** The ticket's uri; blank when it has none or the token is not one of this ledger's tickets. */
  async uriOf(tokenId: bigint): Promise<string> {
    const [row] = await this.dataSource.query<{ uri: string }[]>(`SELECT uri FROM tickets WHERE token_id = $1 AND released_at IS NULL`, [tokenId.toString()]);
    return row?.uri ?? "";
  }
}
