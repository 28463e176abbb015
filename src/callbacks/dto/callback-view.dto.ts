import { ApiProperty } from "@nestjs/swagger";

export class CallbackAttemptDto {
  @ApiProperty({ format: "date-time" }) startedAt: string;
  @ApiProperty() durationMs: number;
  @ApiProperty({ description: "The callbackUrl the attempt went to." }) url: string;
  @ApiProperty({ type: Number, nullable: true, description: "The receiver's HTTP status; null when none came back." }) statusCode: number | null;
  @ApiProperty({ type: String, nullable: true, example: "no answer within 15000 ms" }) error: string | null;
}

/** One callback and its delivery log. */
export class CallbackViewDto {
  @ApiProperty({ format: "uuid", description: "Also its webhook-id header, the same on every attempt." }) callbackId: string;
  @ApiProperty({
    type: String,
    format: "uuid",
    nullable: true,
    description: "The action it reports; null for a notice (endpoint_disabled, callback_exhausted, test).",
  })
  actionPromise: string | null;
  @ApiProperty({ type: String, nullable: true, description: "Null for a notice." }) eventId: string | null;
  @ApiProperty({ type: String, nullable: true }) ticketId: string | null;
  @ApiProperty({
    type: String,
    format: "uuid",
    nullable: true,
    description: "The webhook endpoint this copy goes to; null for the copy that goes to the event's callbackUrl.",
  })
  webhookId: string | null;
  @ApiProperty({ example: "sold" }) action: string;
  @ApiProperty({ enum: ["pending", "delivered", "failed"] }) status: "pending" | "delivered" | "failed";
  @ApiProperty() attempts: number;
  @ApiProperty({ type: String, format: "date-time", nullable: true }) nextAttemptAt: string | null;
  @ApiProperty({ type: String, format: "date-time", nullable: true }) deliveredAt: string | null;
  @ApiProperty({ type: Number, nullable: true }) lastStatusCode: number | null;
  @ApiProperty({ type: String, nullable: true }) lastError: string | null;
  @ApiProperty({ format: "date-time" }) createdAt: string;
  @ApiProperty({ type: "object", additionalProperties: true, description: "The body that is POSTed." })
  body: Record<string, unknown>;
  @ApiProperty({
    type: [CallbackAttemptDto],
    description: "Every attempt, oldest first.",
  })
  attemptLog: CallbackAttemptDto[];
}
