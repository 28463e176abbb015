import { Injectable } from "@nestjs/common";
import { InjectDataSource } from "@nestjs/typeorm";
import { DataSource, IsNull } from "typeorm";

import type { TicketMetadata } from "../registry";
import { TicketEntity } from "../tickets/entities/ticket.entity";
import { ticketMetadataOf } from "../tickets/ticket-metadata";

/**
 * The facts of token metadata that are the ledger's: what an integrator said of a ticket (soldTicket or
 * updateTicket), whose hash alone goes on chain. Read for every answer, so that a change shows at once.
 */
@Injectable()
export class TokenUrisStore {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** The ticket's off-chain metadata, through the seam its hash is computed by; empty when the token is not one of this ledger's tickets. */
  async metadataOf(tokenId: bigint): Promise<TicketMetadata> {
    const ticket = await this.dataSource.getRepository(TicketEntity).findOneBy({ tokenId, releasedAt: IsNull() });
    return ticket ? ticketMetadataOf(ticket) : {};
  }
}
