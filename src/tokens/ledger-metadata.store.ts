import { Injectable } from "@nestjs/common";
import { InjectDataSource } from "@nestjs/typeorm";
import { DataSource } from "typeorm";

import { eventMetadataOf } from "../events/event-metadata";
import type { EventMetadata, TicketAttribute, TicketMetadata } from "../registry";
import { ticketMetadataOf } from "../tickets/ticket-metadata";

/** What the token JSON shows from the ledger: the ticket's metadata and its event's. */
export interface LedgerMetadata {
  ticket: TicketMetadata;
  event: EventMetadata;
}

interface Row {
  uri: string;
  name: string;
  description: string;
  animation_url: string;
  attributes: TicketAttribute[];
  event_description: string;
  ticket_image_url: string;
}

const NONE: LedgerMetadata = { ticket: {}, event: {} };

/**
 * The facts of token metadata that are the ledger's: a ticket's uri, name, description, animation
 * and attributes, and its event's description and ticket image, none of which is on chain. Read in
 * one query for every answer, so that a change shows at once.
 */
@Injectable()
export class LedgerMetadataStore {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** The token's metadata; none when the token is not one of this ledger's tickets. */
  async metadataOf(tokenId: bigint): Promise<LedgerMetadata> {
    const [row] = await this.dataSource.query<Row[]>(
      `SELECT t.uri, t.name, t.description, t.animation_url, t.attributes, e.description AS event_description, e.ticket_image_url
         FROM tickets t JOIN events e ON e.id = t.event_ref
        WHERE t.token_id = $1 AND t.released_at IS NULL`,
      [tokenId.toString()],
    );
    if (!row) return NONE;
    return {
      ticket: ticketMetadataOf({ uri: row.uri, name: row.name, description: row.description, animationUrl: row.animation_url, attributes: row.attributes }),
      event: eventMetadataOf({ description: row.event_description, ticketImageUrl: row.ticket_image_url }),
    };
  }
}
