import { ApiProperty, ApiPropertyOptional } from "@nestjs/swagger";

import { ApiError } from "../../common/errors/api-error";
import { errorDetail, invalidField } from "../../common/errors/error-detail";
import { idLookupProblem } from "../../common/validation/client-id";
import { isWebhookId } from "../callback-id";

export const REDELIVERABLE_STATUSES = ["pending", "delivered", "failed"] as const;
export type RedeliverableStatus = (typeof REDELIVERABLE_STATUSES)[number];

/** Without `status`: the callbacks not delivered yet (failed, and pending a retry). */
export const DEFAULT_REDELIVERY_STATUSES: readonly RedeliverableStatus[] = ["failed", "pending"];

/** Which of the organization's callbacks POST /api/v1/callbacks/redeliver sends again; absent fields do not narrow. */
export class RedeliverCallbacksDto {
  @ApiPropertyOptional({ description: "Only this event's callbacks (its own and its tickets')." })
  eventId?: string;

  @ApiPropertyOptional({
    oneOf: [
      { type: "string", enum: [...REDELIVERABLE_STATUSES] },
      { type: "array", items: { type: "string", enum: [...REDELIVERABLE_STATUSES] } },
    ],
    description: "The callbacks' delivery status, one or a list; by default failed and pending (those not delivered yet).",
    example: "failed",
  })
  status?: RedeliverableStatus | RedeliverableStatus[];

  @ApiPropertyOptional({ format: "date-time", description: "Only callbacks created at or after this time (ISO 8601 with a time zone)." })
  since?: string;

  @ApiPropertyOptional({ format: "uuid", description: "Only the copies that went, or go, to this webhook endpoint of yours." })
  webhookId?: string;
}

export class RedeliveryResultDto {
  @ApiProperty({ description: "Callbacks made due now, with a fresh retry schedule." })
  queued: number;

  @ApiProperty({ description: "Callbacks the filter takes that a worker is delivering right now: left to finish, not sent twice at once." })
  inFlight: number;

  @ApiProperty({
    description:
      "Callbacks the filter takes whose receiver (a webhook endpoint, or an event's callbackUrl) is disabled: left as they are. Enable the receiver, then redeliver.",
  })
  receiverDisabled: number;
}

/** The filter as the store takes it. */
export interface RedeliveryFilter {
  eventId: string | null;
  webhookId: string | null;
  statuses: RedeliverableStatus[];
  since: Date | null;
}

const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/;

/** Validates the request body (unknown fields are ignored, as everywhere); errors in the service's format. */
export function redeliveryFilterOf(body: unknown): RedeliveryFilter {
  if (body === undefined || body === null || body === "") return { eventId: null, webhookId: null, statuses: [...DEFAULT_REDELIVERY_STATUSES], since: null };
  if (typeof body !== "object" || Array.isArray(body)) throw new ApiError(400, errorDetail("invalid_body", "The body must be a JSON object (a filter)."));
  const { eventId, status, since, webhookId } = body as Record<string, unknown>;
  if (eventId !== undefined && (typeof eventId !== "string" || idLookupProblem(eventId) !== null)) {
    throw new ApiError(400, invalidField("eventId", "must be a string of 1 to 255 characters (Unicode code points)."));
  }
  if (webhookId !== undefined && (typeof webhookId !== "string" || !isWebhookId(webhookId))) {
    throw new ApiError(400, invalidField("webhookId", "must be the id of a webhook endpoint (a UUID)."));
  }
  const statuses = status === undefined ? [...DEFAULT_REDELIVERY_STATUSES] : Array.isArray(status) ? status : [status];
  if (statuses.length === 0 || statuses.some((entry) => !(REDELIVERABLE_STATUSES as readonly unknown[]).includes(entry))) {
    throw new ApiError(400, invalidField("status", `must be one of ${REDELIVERABLE_STATUSES.join(", ")}, or a non-empty list of them.`));
  }
  let sinceTime: Date | null = null;
  if (since !== undefined) {
    sinceTime = typeof since === "string" && ISO_TIME.test(since) ? new Date(since) : null;
    if (sinceTime === null || Number.isNaN(sinceTime.getTime())) {
      throw new ApiError(400, invalidField("since", "must be an ISO 8601 date and time with a time zone, e.g. 2026-11-23T10:00:00Z."));
    }
  }
  return { eventId: eventId ?? null, webhookId: webhookId ?? null, statuses: [...new Set(statuses as RedeliverableStatus[])], since: sinceTime };
}
