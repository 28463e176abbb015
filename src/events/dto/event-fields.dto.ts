import { ApiPropertyOptional } from "@nestjs/swagger";
import { IsNumber, IsOptional, IsString, Max, Min } from "class-validator";

import { HTTPS_URL_PATTERN, TOKEN_URI_OR_BLANK_PATTERN, WEB_URL_OR_BLANK_PATTERN } from "../../common/http/openapi-schemas";
import { IsCallbackUrl, IsCurrencyCode, IsTokenUri, IsUint64, IsWebUrl, MaxLongText, MaxText } from "../../common/validation/field-decorators";
import { MAX_LONG_TEXT_LENGTH } from "../../common/validation/text";

const UINT64 = {
  oneOf: [
    { type: "integer", minimum: 0, maximum: Number.MAX_SAFE_INTEGER },
    { type: "string", pattern: "^(0|[1-9][0-9]{0,19})$" },
  ],
};

/** Event fields every event action may carry; which are required depends on the action. */
export class EventFieldsDto {
  @ApiPropertyOptional({ maxLength: 255, default: "", example: "Concert in the Park", description: "On chain." })
  @IsOptional()
  @IsString()
  @MaxText()
  eventName?: string;

  @ApiPropertyOptional({
    maxLength: 255,
    default: "",
    example: "Example Tickets B.V.",
    description:
      "The organizing company's public name: on chain as the event's organizer, which its tickets' metadata shows (the organization's own name when blank).",
  })
  @IsOptional()
  @IsString()
  @MaxText()
  ticketeerName?: string;

  @ApiPropertyOptional({
    pattern: WEB_URL_OR_BLANK_PATTERN,
    maxLength: 255,
    default: "",
    example: "https://shop.example.com/concert",
    description: "http(s) URL, or blank. On chain.",
  })
  @IsOptional()
  @IsWebUrl(false, true)
  shopUrl?: string;

  @ApiPropertyOptional({
    pattern: WEB_URL_OR_BLANK_PATTERN,
    maxLength: 255,
    default: "",
    example: "https://img.example.com/concert.png",
    description: "http(s) URL, or blank. On chain.",
  })
  @IsOptional()
  @IsWebUrl(false, true)
  imageUrl?: string;

  @ApiPropertyOptional({
    maxLength: MAX_LONG_TEXT_LENGTH,
    example: "An evening of chamber music under the trees.",
    description:
      `The event's description, at most ${MAX_LONG_TEXT_LENGTH} characters (Unicode code points); blank for none. Not on chain itself: ` +
      "its hash is, in the event's details (the event's canonical metadata); a change of it goes on chain and tells wallets.",
  })
  @IsOptional()
  @IsString()
  @MaxLongText()
  description?: string;

  @ApiPropertyOptional({
    pattern: TOKEN_URI_OR_BLANK_PATTERN,
    maxLength: 255,
    example: "ipfs://bafybeigdyrzt5sfp7udm7hu76uh7y26nf3efuylqabf3oclgtqy55fbzdi/ticket.png",
    description:
      "The image of every ticket of the event that has no uri of its own: its token's image in wallets, in place of imageUrl. https, " +
      "ipfs://<CID>[/path] or ar://<transaction id>[/path], as a ticket's uri; blank for none (imageUrl then stands in). Not on chain itself: " +
      "its hash is, in the event's details (the event's canonical metadata); a change of it goes on chain and tells wallets.",
  })
  @IsOptional()
  @IsTokenUri()
  ticketImageUrl?: string;

  @ApiPropertyOptional({ minimum: -90, maximum: 90, default: 0, example: 52.3731, description: "Degrees. On chain with 7 decimals." })
  @IsOptional()
  @IsNumber({ allowNaN: false, allowInfinity: false })
  // Min/Max rather than IsLatitude, which checks the number's string form and so refuses 1e-7.
  @Min(-90, { message: "latitude must be a number from -90 to 90" })
  @Max(90, { message: "latitude must be a number from -90 to 90" })
  latitude?: number;

  @ApiPropertyOptional({ minimum: -180, maximum: 180, default: 0, example: 4.8922, description: "Degrees. On chain with 7 decimals." })
  @IsOptional()
  @IsNumber({ allowNaN: false, allowInfinity: false })
  @Min(-180, { message: "longitude must be a number from -180 to 180" })
  @Max(180, { message: "longitude must be a number from -180 to 180" })
  longitude?: number;

  @ApiPropertyOptional({ ...UINT64, default: 0, example: 1900000000, description: "Unix seconds, unsigned 64-bit. On chain." })
  @IsOptional()
  @IsUint64()
  startTime?: number | string;

  @ApiPropertyOptional({ ...UINT64, default: 0, example: 1900010800, description: "Unix seconds, unsigned 64-bit; not before startTime. On chain." })
  @IsOptional()
  @IsUint64()
  endTime?: number | string;
}

export class CurrencyFieldDto extends EventFieldsDto {
  @ApiPropertyOptional({ minLength: 3, maxLength: 3, example: "EUR", description: "ISO 4217 code in capitals. On chain." })
  @IsOptional()
  @IsCurrencyCode()
  currency?: string;

  @ApiPropertyOptional({
    pattern: HTTPS_URL_PATTERN,
    maxLength: 255,
    example: "https://integrator.example.com/callbacks",
    description: "https URL that receives the callbacks.",
  })
  @IsOptional()
  @IsCallbackUrl()
  callbackUrl?: string;
}
