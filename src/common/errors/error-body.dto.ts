import { ApiProperty, ApiPropertyOptional } from "@nestjs/swagger";

import { ERROR_CODES, type ErrorCode } from "./error-detail";
import { KEY_REFUSAL_CODES, type KeyRefusalCode } from "./key-refused";

export class ErrorDetailDto {
  @ApiProperty({ enum: ERROR_CODES, example: "invalid_field", description: "Stable, machine-readable code." })
  code: ErrorCode;

  @ApiProperty({ example: "price is not a non-negative decimal number such as 12.50" })
  message: string;

  @ApiPropertyOptional({
    example: "price",
    description: "The field at fault, for field errors; inside an array, the entry and its field (attributes[3].traitType).",
  })
  field?: string;
}

/** The one error body of the API, for whole requests and (inside `error`) for single items. */
export class ErrorBodyDto {
  @ApiProperty({ enum: ["error"], example: "error" })
  status: "error";

  @ApiProperty({ type: ErrorDetailDto })
  error: ErrorDetailDto;
}

/** The refusal of a cancellation that a later action depends on: it names that action. */
export class CancelRefusedBodyDto extends ErrorBodyDto {
  @ApiPropertyOptional({
    type: String,
    nullable: true,
    example: "01a9c3d2-5b7e-7f10-8a4b-2c6d8e0f1a3b",
    description: "The promise of the later action that depends on this one (cancel it first); null when sales still being accepted block a registration.",
  })
  blockedBy?: string | null;
}

export class ForbiddenBodyDto {
  @ApiProperty({ enum: ["Forbidden"], example: "Forbidden" })
  message: "Forbidden";

  @ApiPropertyOptional({
    enum: KEY_REFUSAL_CODES,
    example: "key_scope",
    description:
      "Absent for a missing, unknown or revoked key. For a live key refused: key_scope (its scope does not cover the operation, or one of a " +
      "/stream's actions; nothing was applied), key_ip (it is bound to IP ranges and the request came from elsewhere).",
  })
  code?: KeyRefusalCode;
}
