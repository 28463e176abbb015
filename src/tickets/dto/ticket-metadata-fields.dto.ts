import { ApiProperty, ApiPropertyOptional } from "@nestjs/swagger";
import { IsOptional, IsString } from "class-validator";

import { TOKEN_URI_OR_BLANK_PATTERN } from "../../common/http/openapi-schemas";
import { CHAIN_TRAIT_TYPES } from "../../common/token-traits";
import { IsTokenUri, MaxLongText, MaxText, pathedRule } from "../../common/validation/field-decorators";
import { MAX_LONG_TEXT_LENGTH, MAX_TEXT_LENGTH } from "../../common/validation/text";
import { ATTRIBUTE_DISPLAY_TYPES, type AttributeDisplayType, type TicketAttribute } from "../../registry";
import { attributesProblem, MAX_ATTRIBUTES, MAX_TRAIT_TYPE_LENGTH } from "../ticket-attributes";

/** What the document says of each field: how it shows, and that only its hash is on chain. */
const OFF_CHAIN = "Not on chain itself: part of the ticket's canonical metadata, whose hash the registry records with the sale or update.";

/** One of an integrator's traits of a ticket, as the API takes it: the token's JSON serves it as {trait_type, value, display_type}. */
export class TicketAttributeDto implements TicketAttribute {
  @ApiProperty({
    minLength: 1,
    maxLength: MAX_TRAIT_TYPE_LENGTH,
    example: "Seat",
    description:
      `The trait's name, 1 to ${MAX_TRAIT_TYPE_LENGTH} characters without control, bidirectional or zero-width characters. Not one the token ` +
      `states from the chain (${CHAIN_TRAIT_TYPES.join(", ")}), compared without case or surrounding spaces: those are refused with invalid_field.`,
  })
  traitType: string;

  @ApiProperty({
    oneOf: [{ type: "string", maxLength: MAX_TEXT_LENGTH }, { type: "number" }],
    example: "12A",
    description: `A string of at most ${MAX_TEXT_LENGTH} characters or a finite number; a number when displayType is given.`,
  })
  value: string | number;

  @ApiPropertyOptional({
    enum: ATTRIBUTE_DISPLAY_TYPES,
    description:
      "How wallets render the value (OpenSea's display_type): number, date (Unix seconds), boost_number or boost_percentage. " +
      "Left out, the value is shown as it is.",
  })
  displayType?: AttributeDisplayType;
}

const IsTicketAttributes = () => pathedRule("isTicketAttributes", attributesProblem);

/**
 * The metadata fields soldTicket, updateTicket and POST /api/v1/sold take: each optional. A sale
 * leaves out what it does not send; an update keeps the stored value of each field it leaves out.
 */
export class TicketMetadataFieldsDto {
  @ApiPropertyOptional({
    maxLength: MAX_TEXT_LENGTH,
    example: "Concert in the Park, seat 12A",
    description: `The token's name in wallets; blank for none (the event's name and the ticket's number stand in). ${OFF_CHAIN}`,
  })
  @IsOptional()
  @IsString()
  @MaxText()
  name?: string;

  @ApiPropertyOptional({
    maxLength: MAX_LONG_TEXT_LENGTH,
    example: "Front row, left of the stage. Doors open at 19:00.",
    description:
      `The token's description in wallets, at most ${MAX_LONG_TEXT_LENGTH} characters (Unicode code points); blank for none (the event's ` +
      `description, else one written from the chain's facts, stands in). ${OFF_CHAIN}`,
  })
  @IsOptional()
  @IsString()
  @MaxLongText()
  description?: string;

  @ApiPropertyOptional({
    maxLength: MAX_TEXT_LENGTH,
    pattern: TOKEN_URI_OR_BLANK_PATTERN,
    example: "ipfs://bafybeigdyrzt5sfp7udm7hu76uh7y26nf3efuylqabf3oclgtqy55fbzdi/1.mp4",
    description:
      "A video, sound or web page wallets play in place of the image (OpenSea's animation_url): https, ipfs://<CID>[/path] or " +
      `ar://<transaction id>[/path], as uri; blank for none. ${OFF_CHAIN}`,
  })
  @IsOptional()
  @IsTokenUri()
  animationUrl?: string;

  @ApiPropertyOptional({
    type: [TicketAttributeDto],
    maxItems: MAX_ATTRIBUTES,
    description:
      `The ticket's own traits (seat, section, row, tier), at most ${MAX_ATTRIBUTES}, in the order wallets show them after the chain's. ` +
      `An empty array clears them. A refused entry names its field: attributes[3].traitType. ${OFF_CHAIN}`,
  })
  @IsOptional()
  @IsTicketAttributes()
  attributes?: TicketAttributeDto[];
}
