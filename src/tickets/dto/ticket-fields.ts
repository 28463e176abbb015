import { applyDecorators } from "@nestjs/common";
import { ApiProperty, ApiPropertyOptional } from "@nestjs/swagger";
import { IsDefined, IsOptional } from "class-validator";

import { TOKEN_URI_OR_BLANK_PATTERN } from "../../common/http/openapi-schemas";
import { IsTokenUri, IsUint64, rule } from "../../common/validation/field-decorators";
import { ClientIdField } from "../../common/validation/id-field";
import { priceProblem } from "../../registry";

/** A price the registry can record exactly. */
const IsPrice = () =>
  rule(
    "isPrice",
    (value) => priceProblem(value) === null,
    (args) => `${args.property} ${priceProblem(args.value)}`,
  );

/** Field rules shared by the ticket DTOs, so every action states each rule once. */
export const TicketIdField = () =>
  ClientIdField({
    required: true,
    example: "0b9e2c1a-7d4f-4a7e-8f3e-5c2d1b0a9f87",
    description: "Chosen by the integrator (a UUID is recommended); on chain only as its SHA-256.",
  });

export const EventIdField = () =>
  ClientIdField({
    required: true,
    example: "6f1c3f5e-8d0a-4c8e-9a43-0b7f3d1e2a10",
    description: "A registered event (or one registered earlier in the same request).",
  });

export const PriceField = () =>
  applyDecorators(
    ApiProperty({
      example: "49.95",
      pattern: "^[0-9]+(\\.[0-9]+)?$",
      description:
        "Non-negative decimal string in the event's currency. Recorded on chain with 6 decimals: more decimal places are accepted only when they are zeros; at most 79228162514264337593543.950335.",
    }),
    IsDefined(),
    IsPrice(),
  );

export const OrderTimeField = () =>
  applyDecorators(
    ApiPropertyOptional({
      oneOf: [
        { type: "integer", minimum: 0, maximum: Number.MAX_SAFE_INTEGER },
        { type: "string", pattern: "^(0|[1-9][0-9]{0,19})$" },
      ],
      example: 1750000000,
      description: "Unix seconds, unsigned 64-bit; defaults to the time the request is accepted. On chain.",
    }),
    IsOptional(),
    IsUint64(),
  );

/** How an action treats a ticket's uri: a sale defaults it to blank, an update keeps the stored one when it is left out. */
export type UriUse = "sale" | "update";

export const UriField = (use: UriUse) =>
  applyDecorators(
    ApiPropertyOptional({
      maxLength: 255,
      pattern: TOKEN_URI_OR_BLANK_PATTERN,
      example: "ipfs://bafybeigdyrzt5sfp7udm7hu76uh7y26nf3efuylqabf3oclgtqy55fbzdi/1.json",
      description:
        "The ticket's image, which wallets show as its token's image: an https URL, ipfs://<CID>[/path] or ar://<transaction id>[/path], " +
        "or blank (the event's ticketImageUrl, else its imageUrl, then stands in). Every other scheme (javascript:, data:, http:, file: ...) is refused, and so are spaces " +
        'and the characters " < > \\ ^ ` { | }. Not on chain.' +
        (use === "sale" ? " Defaults to blank." : " Left out, the ticket keeps its uri; blank clears it."),
    }),
    IsOptional(),
    IsTokenUri(),
  );
