import { ApiProperty, ApiPropertyOptional } from "@nestjs/swagger";

import { CHAIN_TRAIT_TYPES } from "../../common/token-traits";
import { ATTRIBUTE_DISPLAY_TYPES, type AttributeDisplayType } from "../../registry";
import { TOKEN_STATES } from "../chain/token-facts";

/** One trait, in OpenSea's {trait_type, value} form. */
export class TokenAttributeDto {
  @ApiProperty({
    example: "State",
    description:
      `First the chain's: ${CHAIN_TRAIT_TYPES.join(", ")} (Start and End are dates); what the event left unset (no name, no times, no venue) ` +
      "is left out. Then the integrator's attributes of the ticket, in its order, none of them bearing a chain trait's name.",
  })
  trait_type: string;

  @ApiProperty({
    oneOf: [{ type: "string" }, { type: "number" }],
    example: "Checked in",
    description:
      `A string, or a number for dates (Unix seconds), coordinates, counts and the price. State is one of ${TOKEN_STATES.join(", ")}. ` +
      "An integrator's attribute: its value as given.",
  })
  value: string | number;

  @ApiPropertyOptional({
    enum: ATTRIBUTE_DISPLAY_TYPES,
    description:
      "date: value is Unix seconds; number: a count or an amount. An integrator's attribute: its displayType (boost_number and boost_percentage too); absent when it gave none.",
  })
  display_type?: AttributeDisplayType;
}

/** ERC-721 metadata JSON: EIP-721's name, description and image, with OpenSea's external_url and attributes. */
export class TokenMetadataDto {
  @ApiProperty({
    example: "Concert in the Park #12",
    description:
      "The ticket's name where the integrator gave one (soldTicket or updateTicket), else the event's name and the ticket's number within it (its serial).",
  })
  name: string;

  @ApiProperty({
    example: "Ticket #12 to Concert in the Park, organized by Example Tickets B.V., starting 2030-03-17 17:46 UTC. State: Checked in.",
    description:
      "The ticket's description where the integrator gave one, else its event's description, else one written from the chain's facts " +
      "(the ticket, its event, organizer, start and state).",
  })
  description: string;

  @ApiPropertyOptional({
    example: "https://img.example.com/concert.png",
    description:
      "The ticket's own uri where the integrator gave one (soldTicket or updateTicket: https, ipfs:// or ar://), else the event's ticketImageUrl, " +
      "else the event's imageUrl (on chain); absent when none is set. A uri of another scheme, taken before the API refused them, is never shown: " +
      "the next one stands in.",
  })
  image?: string;

  @ApiPropertyOptional({
    example: "ipfs://bafybeigdyrzt5sfp7udm7hu76uh7y26nf3efuylqabf3oclgtqy55fbzdi/1.mp4",
    description: "The ticket's animationUrl (a video, sound or web page wallets play in place of the image); absent when the integrator gave none.",
  })
  animation_url?: string;

  @ApiProperty({
    example: "https://registry.example.com/verify/tokens/55340232221128654860",
    description:
      "The token's public page, addressed by tokenId: what the chain records of it, with the transactions. Under PUBLIC_BASE_URL (outside " +
      "production, where it may be unset: the address the server answered on, never the request's Host header).",
  })
  external_url: string;

  @ApiProperty({ type: [TokenAttributeDto] })
  attributes: TokenAttributeDto[];

  @ApiProperty({
    example: "0x5f0c2b6c1d0b3e1f4d8e0a7b2c9d6e3f1a4b7c0d9e2f5a8b1c4d7e0f3a6b9c2d",
    description:
      "keccak-256 of the JCS (RFC 8785) serialization of metadata_document, 0x-hex: what the registry records for the token in its " +
      "TicketsMetadataUpdated log with every updateTicket, and with the sale of a ticket that has metadata of its own. Also in the X-Metadata-Hash header.",
  })
  metadata_hash: string;

  @ApiProperty({
    type: "object",
    additionalProperties: true,
    example: { uri: "https://img.example.com/ticket-12.png" },
    description:
      "The canonical document metadata_hash is computed from: the ticket's off-chain fields that are set (uri, and name, description, " +
      "animationUrl, attributes where given), absent ones left out. Serialize it with any JCS library and hash it to check.",
  })
  metadata_document: Record<string, unknown>;
}

/** The collection's metadata (ERC-7572 contractURI). */
export class CollectionMetadataDto {
  @ApiProperty({ example: "Ticket Registry", description: "The registry's ERC-721 name, read from the chain." })
  name: string;

  @ApiProperty({ example: "TICKET", description: "The registry's ERC-721 symbol, read from the chain." })
  symbol: string;

  @ApiProperty({ description: "COLLECTION_DESCRIPTION." })
  description: string;

  @ApiPropertyOptional({ description: "COLLECTION_IMAGE_URL; absent when not set." })
  image?: string;

  @ApiProperty({
    example: "https://registry.example.com",
    description: "COLLECTION_EXTERNAL_LINK, else PUBLIC_BASE_URL (unset outside production: the address the server answered on, never the Host header).",
  })
  external_link: string;
}
