import { ApiProperty } from "@nestjs/swagger";

import { NULL_SCHEMA } from "../../../common/http/openapi-schemas";
import { WEBHOOK_ACTIONS } from "../webhook-actions";

/** A webhook endpoint as its organization sees it. */
export class WebhookViewDto {
  @ApiProperty({ format: "uuid" }) webhookId: string;
  @ApiProperty() url: string;
  @ApiProperty({ enum: [...WEBHOOK_ACTIONS], isArray: true, nullable: true, description: "null: every action." })
  actions: string[] | null;
  @ApiProperty() description: string;
  @ApiProperty({ description: "false: its callbacks are kept and not attempted (see disabledReason)." }) enabled: boolean;
  @ApiProperty({
    oneOf: [{ type: "string", enum: ["request", "failing"] }, NULL_SCHEMA],
    description:
      "Why it is disabled: you asked (PATCH enabled: false), or every attempt failed for the operator's WEBHOOK_DISABLE_AFTER_HOURS (120 by default).",
  })
  disabledReason: "request" | "failing" | null;
  @ApiProperty({ type: String, format: "date-time", nullable: true }) disabledAt: string | null;
  @ApiProperty({
    type: String,
    format: "date-time",
    nullable: true,
    description: "The first failed attempt since the last delivered one; null while its last attempt was delivered (or none was made).",
  })
  failingSince: string | null;
  @ApiProperty({ format: "date-time" }) createdAt: string;
  @ApiProperty({ format: "date-time" }) updatedAt: string;
}

/** POST /api/v1/webhooks/{webhookId}/test: what the receiver answered the test callback. */
export class WebhookTestResultDto {
  @ApiProperty({ format: "uuid", description: "The test callback's id: its webhook-id header, and its entry in GET /api/v1/callbacks." }) callbackId: string;
  @ApiProperty({ description: "The receiver answered 2xx." }) delivered: boolean;
  @ApiProperty({ type: Number, nullable: true, description: "The receiver's HTTP status; null when none came back." }) statusCode: number | null;
  @ApiProperty({ description: "From the connection's start to the answer's end (the name lookup included)." }) durationMs: number;
  @ApiProperty({ type: String, nullable: true, example: "no answer within 15000 ms", description: "Why no status came back, or null." }) error: string | null;
  @ApiProperty({ format: "date-time" }) sentAt: string;
}
