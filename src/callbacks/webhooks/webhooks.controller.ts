import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post } from "@nestjs/common";
import {
  ApiBadRequestResponse,
  ApiBody,
  ApiConflictResponse,
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from "@nestjs/swagger";

import { type AuthenticatedOrganization, CurrentOrganization } from "../../auth/authenticated-organization";
import { ErrorBodyDto } from "../../common/errors/error-body.dto";
import { ApiCommonReadResponses, ApiCommonWriteResponses } from "../../common/http/api-responses";
import { CreateWebhookDto, UpdateWebhookDto } from "./dto/webhook-body.dto";
import { WebhookTestResultDto, WebhookViewDto } from "./dto/webhook-view.dto";
import { MAX_WEBHOOKS_PER_ORGANIZATION } from "./webhook-actions";
import { WebhooksService } from "./webhooks.service";

const NOT_FOUND = { type: ErrorBodyDto, description: "webhook_not_found (also for another organization's endpoint)." };
const BAD_BODY = {
  type: ErrorBodyDto,
  description:
    "invalid_json, invalid_body (not a JSON object; a PATCH with nothing to change) or invalid_field naming the field: url (not https, " +
    "not a URL callbacks can be sent to: the rules of callbackUrl), actions (an unknown action, none, or one twice), description, enabled.",
};

@ApiTags("webhooks")
@Controller("api/v1/webhooks")
export class WebhooksController {
  constructor(private readonly webhooks: WebhooksService) {}

  @Post()
  @HttpCode(201)
  @ApiOperation({
    operationId: "createWebhook",
    summary: "Add a webhook endpoint: a receiver of your own copy of callbacks",
    description:
      "Beside each event's callbackUrl, the endpoint receives its own copy of every callback whose action it takes (all of them without " +
      "actions), signed as every callback, with its own delivery log and retries. " +
      `An organization has at most ${MAX_WEBHOOKS_PER_ORGANIZATION} endpoints.`,
  })
  @ApiBody({ type: CreateWebhookDto })
  @ApiCreatedResponse({ type: WebhookViewDto })
  @ApiBadRequestResponse(BAD_BODY)
  @ApiConflictResponse({ type: ErrorBodyDto, description: `webhook_limit_reached: the organization has ${MAX_WEBHOOKS_PER_ORGANIZATION} endpoints already.` })
  @ApiCommonWriteResponses()
  create(@CurrentOrganization() organization: AuthenticatedOrganization, @Body() body: unknown): Promise<WebhookViewDto> {
    return this.webhooks.create(organization.id, body);
  }

  @Get()
  @ApiOperation({ operationId: "listWebhooks", summary: "Your webhook endpoints, oldest first" })
  @ApiOkResponse({ type: [WebhookViewDto] })
  @ApiCommonReadResponses()
  list(@CurrentOrganization() organization: AuthenticatedOrganization): Promise<WebhookViewDto[]> {
    return this.webhooks.list(organization.id);
  }

  @Get(":webhookId")
  @ApiOperation({ operationId: "getWebhook", summary: "One webhook endpoint: its filter, and whether it is enabled or failing" })
  @ApiOkResponse({ type: WebhookViewDto })
  @ApiNotFoundResponse(NOT_FOUND)
  @ApiCommonReadResponses()
  find(@CurrentOrganization() organization: AuthenticatedOrganization, @Param("webhookId") webhookId: string): Promise<WebhookViewDto> {
    return this.webhooks.find(organization.id, webhookId);
  }

  @Patch(":webhookId")
  @ApiOperation({
    operationId: "updateWebhook",
    summary: "Change an endpoint's url, actions or description, or disable and enable it",
    description:
      "A new url takes the endpoint's pending callbacks with it and forgets the old url's failures. enabled: false stops its callbacks " +
      "(kept as failed, not attempted); enabled: true enables it again, also after the service disabled it for failing every attempt for " +
      "WEBHOOK_DISABLE_AFTER_HOURS; then POST /api/v1/callbacks/redeliver with its webhookId sends what it missed.",
  })
  @ApiBody({ type: UpdateWebhookDto })
  @ApiOkResponse({ type: WebhookViewDto })
  @ApiBadRequestResponse(BAD_BODY)
  @ApiNotFoundResponse(NOT_FOUND)
  @ApiCommonWriteResponses()
  update(
    @CurrentOrganization() organization: AuthenticatedOrganization,
    @Param("webhookId") webhookId: string,
    @Body() body: unknown,
  ): Promise<WebhookViewDto> {
    return this.webhooks.update(organization.id, webhookId, body);
  }

  @Delete(":webhookId")
  @HttpCode(204)
  @ApiOperation({
    operationId: "deleteWebhook",
    summary: "Delete an endpoint, with its callbacks and their delivery log",
    description: "Nothing more is sent to it; an attempt already under way finishes unrecorded.",
  })
  @ApiNoContentResponse({ description: "Deleted." })
  @ApiNotFoundResponse(NOT_FOUND)
  @ApiCommonWriteResponses()
  async delete(@CurrentOrganization() organization: AuthenticatedOrganization, @Param("webhookId") webhookId: string): Promise<void> {
    await this.webhooks.delete(organization.id, webhookId);
  }

  @Post(":webhookId/test")
  @HttpCode(200)
  @ApiOperation({
    operationId: "testWebhook",
    summary: "Send a signed test callback to the endpoint now, and see what it answered",
    description:
      'The body is {"action":"test","transactionType":"notice","webhookId":…,"sentAt":…}, signed as every callback. It is sent once, ' +
      "while the request waits (at most CALLBACK_TIMEOUT_MS), whether or not the endpoint is enabled and whatever its actions; the answer " +
      "says what the receiver answered and when. The test is logged among the endpoint's callbacks (GET /api/v1/callbacks?webhookId=…) and " +
      "changes nothing of its failure state.",
  })
  @ApiOkResponse({ type: WebhookTestResultDto })
  @ApiNotFoundResponse(NOT_FOUND)
  @ApiCommonWriteResponses()
  test(@CurrentOrganization() organization: AuthenticatedOrganization, @Param("webhookId") webhookId: string): Promise<WebhookTestResultDto> {
    return this.webhooks.test(organization.id, webhookId);
  }
}
