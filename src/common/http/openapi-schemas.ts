import type { Type } from "@nestjs/common";
import { getSchemaPath } from "@nestjs/swagger";

/**
 * An unsigned 64-bit integer as the service answers it (uint64Json): a JSON number while exact, a
 * decimal string beyond 2^53 - 1. The two members never overlap, so exactly one matches.
 */
export const UINT64_ANSWER_SCHEMA = {
  oneOf: [
    { type: "integer", minimum: 0, maximum: Number.MAX_SAFE_INTEGER },
    { type: "string", pattern: "^[1-9][0-9]{15,19}$", description: "Above 2^53 - 1, as a decimal string (up to 18446744073709551615)." },
  ],
};

/**
 * The JSON null, in OpenAPI 3.0 (the version the document declares): `nullable` only widens a `type`
 * given beside it, so `nullable` next to an `allOf` of a $ref does not accept null (the ref's
 * `type: object` still refuses it). This schema accepts null and nothing else.
 */
export const NULL_SCHEMA = { type: "object", nullable: true, enum: [null], description: "null" };

/** A property that is either the DTO's object or null. The DTO needs an @ApiExtraModels where it is used. */
export function nullableRef(dto: Type<unknown>): { oneOf: object[] } {
  return { oneOf: [{ $ref: getSchemaPath(dto) }, NULL_SCHEMA] };
}

/**
 * What IsWebUrl takes: an http(s) URL (any letter case in the scheme, international characters
 * allowed, so not JSON Schema's ASCII-only `format: uri`), or blank where the field allows it.
 */
export const WEB_URL_OR_BLANK_PATTERN = "^([hH][tT][tT][pP][sS]?://\\S+)?$";

/** What IsCallbackUrl takes: an https URL (international characters allowed). */
export const HTTPS_URL_PATTERN = "^[hH][tT][tT][pP][sS]://\\S+$";

/**
 * What IsClientId takes (client-id.ts), as the document says it: not only dots, and none of the
 * control, bidirectional or zero-width characters. The length (255 code points) is the schema's maxLength.
 */
export const CLIENT_ID_PATTERN = "^(?!\\.+$)[^\\u0000-\\u001F\\u007F-\\u009F\\u061C\\u200B-\\u200F\\u202A-\\u202E\\u2060\\u2066-\\u2069\\uFEFF]+$";

/** What IsTokenUri takes: an https, ipfs:// or ar:// URI (any letter case in the scheme), or blank. */
export const TOKEN_URI_OR_BLANK_PATTERN = '^(([hH][tT][tT][pP][sS]|[iI][pP][fF][sS]|[aA][rR])://[^\\s"<>\\\\^`{|}]+)?$';
