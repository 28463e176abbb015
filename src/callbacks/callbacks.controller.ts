import { Body, Controller, Get, HttpCode, Param, ParseIntPipe, Post, Query, DefaultValuePipe } from "@nestjs/common";
import { ApiBadRequestResponse, ApiBody, ApiConflictResponse, ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiQuery, ApiTags } from "@nestjs/swagger";

import { type AuthenticatedOrganization, CurrentOrganization } from "../auth/authenticated-organization";
import { ApiError } from "../common/errors/api-error";
import { ErrorBodyDto } from "../common/errors/error-body.dto";
import { errorDetail, invalidField } from "../common/errors/error-detail";
import { ApiCommonReadResponses, ApiCommonWriteResponses } from "../common/http/api-responses";
import { isWebhookId } from "./callback-id";
import { CALLBACK_STATUSES, CallbacksService } from "./callbacks.service";
import { CallbackViewDto } from "./dto/callback-view.dto";
import { RedeliverCallbacksDto, RedeliveryResultDto } from "./dto/redeliver-callbacks.dto";

@ApiTags("callbacks")
@Controller("api/v1/callbacks")
export class CallbacksController {
  constructor(private readonly callbacks: CallbacksService) {}

  @Get()
  @ApiOperation({ operationId: "listCallbacks", summary: "Your callbacks and their delivery log, newest first" })
  @ApiQuery({ name: "status", required: false, enum: CALLBACK_STATUSES })
  @ApiQuery({ name: "eventId", required: false })
  @ApiQuery({
    name: "webhookId",
    required: false,
    schema: { type: "string", format: "uuid" },
    description: "Only the copies of this webhook endpoint of yours.",
  })
  @ApiQuery({ name: "limit", required: false, schema: { type: "integer", minimum: 1, maximum: 500, default: 100 } })
  @ApiOkResponse({ type: [CallbackViewDto] })
  @ApiCommonReadResponses()
  list(
    @CurrentOrganization() organization: AuthenticatedOrganization,
    @Query("status") status?: string,
    @Query("eventId") eventId?: string,
    @Query("limit", new DefaultValuePipe(100), ParseIntPipe) limit = 100,
    @Query("webhookId") webhookId?: string,
  ): Promise<CallbackViewDto[]> {
    if (status !== undefined && !(CALLBACK_STATUSES as readonly string[]).includes(status)) {
      throw new ApiError(400, errorDetail("invalid_field", `status must be one of ${CALLBACK_STATUSES.join(", ")}.`, "status"));
    }
    if (limit < 1 || limit > 500) throw new ApiError(400, errorDetail("invalid_field", "limit must be from 1 to 500.", "limit"));
    if (webhookId !== undefined && !isWebhookId(webhookId))
      throw new ApiError(400, invalidField("webhookId", "must be the id of a webhook endpoint (a UUID)."));
    return this.callbacks.list(organization.id, { status, eventId, webhookId, limit });
  }

  @Post("redeliver")
  @HttpCode(200)
  @ApiOperation({
    operationId: "redeliverCallbacks",
    summary: "Send again every callback a filter takes (after your receiver was down)",
    description:
      "Your callbacks of an event (eventId), with a delivery status (status: by default failed and pending, those not delivered yet), " +
      "created since a time (since), of one webhook endpoint (webhookId): each is made due now with a fresh retry schedule, as POST /api/v1/callbacks/{callbackId}/redeliver does " +
      "one, and keeps its webhook-id. A callback a worker is delivering at that moment is left to finish (counted as inFlight). Calling " +
      "again with the same filter queues nothing twice: what the first call queued is pending, or already on its way. A callback whose " +
      "receiver is disabled is left as it is (counted as receiverDisabled): enable the receiver first. A delivered callback is kept " +
      "CALLBACK_RETENTION_DAYS after its delivery, then deleted: older ones are not taken.",
  })
  @ApiBody({ type: RedeliverCallbacksDto, required: false })
  @ApiOkResponse({ type: RedeliveryResultDto })
  @ApiBadRequestResponse({
    type: ErrorBodyDto,
    description: "invalid_json, invalid_body (not a JSON object) or invalid_field (eventId, status, since, webhookId).",
  })
  @ApiCommonWriteResponses()
  redeliverMatching(@CurrentOrganization() organization: AuthenticatedOrganization, @Body() body: unknown): Promise<RedeliveryResultDto> {
    return this.callbacks.redeliverMatching(organization.id, body);
  }

  @Get(":callbackId")
  @ApiOperation({ operationId: "getCallback", summary: "One callback and its delivery log" })
  @ApiOkResponse({ type: CallbackViewDto })
  @ApiNotFoundResponse({ type: ErrorBodyDto, description: "callback_not_found (also for another organization's callback)." })
  @ApiCommonReadResponses()
  find(@CurrentOrganization() organization: AuthenticatedOrganization, @Param("callbackId") callbackId: string): Promise<CallbackViewDto> {
    return this.callbacks.find(organization.id, callbackId);
  }

  @Post(":callbackId/redeliver")
  @HttpCode(200)
  @ApiOperation({
    operationId: "redeliverCallback",
    summary: "Send a callback again",
    description:
      "Now, with a fresh retry schedule, to its receiver's URL as it is now; the webhook-id stays the same so receivers can drop duplicates. " +
      "Refused while its receiver (the webhook endpoint, or the event's callbackUrl) is disabled: enable it first. " +
      "A delivered callback is kept CALLBACK_RETENTION_DAYS after its delivery, then deleted (404 callback_not_found); the action's outcome stays at GET /api/v1/actions/{promise}.",
  })
  @ApiOkResponse({ type: CallbackViewDto })
  @ApiNotFoundResponse({
    type: ErrorBodyDto,
    description: "callback_not_found (also for another organization's callback, and for one delivered more than CALLBACK_RETENTION_DAYS ago).",
  })
  @ApiConflictResponse({
    type: ErrorBodyDto,
    description:
      "receiver_disabled: the callback's receiver is disabled (PATCH /api/v1/webhooks/{webhookId} with enabled: true, or an updateEvent with a callbackUrl, enables it).",
  })
  @ApiCommonReadResponses()
  redeliver(@CurrentOrganization() organization: AuthenticatedOrganization, @Param("callbackId") callbackId: string): Promise<CallbackViewDto> {
    return this.callbacks.redeliver(organization.id, callbackId);
  }
}
