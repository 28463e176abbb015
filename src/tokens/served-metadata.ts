import { isTokenUri } from "../common/validation/token-uri";
import { canonicalTicketDocument, ticketMetadataHash, type TicketMetadata } from "../registry";

/** What `/tokens/{tokenId}` states of the off-chain metadata it serves, for a holder to check against the chain. */
export interface ServedMetadata {
  /** keccak-256 of the JCS serialization of `metadata_document`, 0x-hex. */
  metadata_hash: string;
  /** The canonical document that was hashed: the ticket's off-chain fields that are set. */
  metadata_document: Record<string, unknown>;
}

/**
 * The document and hash of what the token JSON shows: a URI it never shows (one the ledger took before
 * it took only https, ipfs and ar) is left out of the document too, so the JSON never carries it and
 * the hash states what is served; such a ticket then reads as differing from the chain.
 */
export function servedMetadata(metadata: TicketMetadata): ServedMetadata {
  const shown = { ...metadata, uri: shownUri(metadata.uri), animationUrl: shownUri(metadata.animationUrl) };
  return { metadata_hash: ticketMetadataHash(shown), metadata_document: canonicalTicketDocument(shown) };
}

function shownUri(uri: string | null | undefined): string | null {
  return uri && isTokenUri(uri) ? uri : null;
}
