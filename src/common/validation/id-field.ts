import { applyDecorators } from "@nestjs/common";
import { ApiProperty, ApiPropertyOptional } from "@nestjs/swagger";
import { IsDefined, IsOptional } from "class-validator";

import { CLIENT_ID_PATTERN } from "../http/openapi-schemas";
import { IsClientId } from "./field-decorators";
import { MAX_TEXT_LENGTH } from "./text";

/** What the document says of every id field, after the field's own words. */
export const CLIENT_ID_RULE =
  `1 to ${MAX_TEXT_LENGTH} characters, counted as Unicode code points; no control characters (U+0000–U+001F, U+007F–U+009F), ` +
  "bidirectional controls (U+061C, U+200E, U+200F, U+202A–U+202E, U+2066–U+2069) or zero-width characters (U+200B–U+200D, U+2060, U+FEFF), " +
  'and not only dots (".", "..").';

/**
 * An id field the integrator fills (eventId, ticketId, ticketeerId): the one rule of every id
 * (IsClientId), and the document's schema of it.
 */
export const ClientIdField = (options: { required: boolean; example: string; description: string }) =>
  applyDecorators(
    (options.required ? ApiProperty : ApiPropertyOptional)({
      minLength: 1,
      maxLength: MAX_TEXT_LENGTH,
      pattern: CLIENT_ID_PATTERN,
      example: options.example,
      description: `${options.description} ${CLIENT_ID_RULE}`,
    }),
    options.required ? IsDefined() : IsOptional(),
    IsClientId(),
  );
