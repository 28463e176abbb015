import { canonicalTicketDocument, ticketMetadataHash, type TicketMetadata } from "../registry";

/** What `/tokens/{tokenId}` states of the off-chain metadata it serves, for a holder to check against the chain. */
export interface ServedMetadata {
  /** keccak-256 of the JCS serialization of `metadata_document`, 0x-hex. */
  metadata_hash: string;
  /** The canonical document that was hashed: the ticket's off-chain fields that are set. */
  metadata_document: Record<string, unknown>;
}

export function servedMetadata(metadata: TicketMetadata): ServedMetadata {
  return { metadata_hash: ticketMetadataHash(metadata), metadata_document: canonicalTicketDocument(metadata) };
}
