import { applyDecorators, Body, Controller, HttpCode, Post, Req, Res } from "@nestjs/common";
import { ApiBody, ApiOkResponse, ApiOperation, ApiTags } from "@nestjs/swagger";
import type { Request, Response } from "express";

import { type AuthenticatedOrganization, CurrentOrganization } from "../auth/authenticated-organization";
import { CountsActions } from "../auth/rate-limit.guard";
import { RequiresScope } from "../auth/required-scope";
import { ApiCommonWriteResponses } from "../common/http/api-responses";
import { requireItemArray } from "../common/http/item-array";
import { requestIdOf } from "../common/http/request-id";
import type { AppConfig } from "../config/app-config";
import { InjectConfig } from "../config/config.module";
import { QUEUE_FULL_RETRY_AFTER_HEADER, retryAfterQueueFull } from "../ledger/queue-full";
import { ApiStreamActionModels, STREAM_ACTION_SCHEMA, StreamResponseDto } from "./dto/stream-action.dto";
import { CHECK_IN_STREAM_ACTIONS, scopeOfStreamActions } from "./stream-scope";
import { StreamService } from "./stream.service";

const STREAM_PATH = "stream";
const STREAM_PATH_V1 = "api/v1/stream";
export const STREAM_PATHS = [STREAM_PATH, STREAM_PATH_V1];

/** Both paths are one operation; each needs its own operationId for generated clients. */
const StreamOperation = (operationId: string) =>
  applyDecorators(
    HttpCode(200),
    CountsActions(),
    RequiresScope("scan", scopeOfStreamActions),
    ApiOperation({
      operationId,
      summary: "Register a mixed list of actions",
      description:
        "Up to 5000 actions, processed in the order sent, in one transaction: a newEvent, then its soldTicket, then its scannedTicket in one request all succeed. Served at /stream and /api/v1/stream. " +
        `A scan key may send only ${CHECK_IN_STREAM_ACTIONS.join(" and ")} actions: a request holding any other action (or an entry naming none) ` +
        "needs a full key, and from a scan key it is refused whole (403 key_scope) before anything of it is applied.",
    }),
    ApiStreamActionModels(),
    ApiBody({
      schema: { type: "array", items: STREAM_ACTION_SCHEMA },
      description:
        "Up to 5000 {action, data} entries (too_many_items beyond). An entry that does not match its action's schema is refused on its own (invalid_item, unknown_action, invalid_field, ...) in the answer's data; the others are still taken.",
    }),
    ApiOkResponse({ type: StreamResponseDto, headers: QUEUE_FULL_RETRY_AFTER_HEADER }),
    ApiCommonWriteResponses(),
  );

@ApiTags("stream")
@Controller()
export class StreamController {
  constructor(
    private readonly stream: StreamService,
    @InjectConfig() private readonly config: AppConfig,
  ) {}

  @Post(STREAM_PATH)
  @StreamOperation("streamActions")
  accept(
    @CurrentOrganization() organization: AuthenticatedOrganization,
    @Body() body: unknown,
    @Req() request: Request,
    @Res({ passthrough: true }) response: Response,
  ): Promise<StreamResponseDto> {
    return this.acceptList(organization, body, request, response);
  }

  @Post(STREAM_PATH_V1)
  @StreamOperation("streamActionsV1")
  acceptV1(
    @CurrentOrganization() organization: AuthenticatedOrganization,
    @Body() body: unknown,
    @Req() request: Request,
    @Res({ passthrough: true }) response: Response,
  ): Promise<StreamResponseDto> {
    return this.acceptList(organization, body, request, response);
  }

  private async acceptList(organization: AuthenticatedOrganization, body: unknown, request: Request, response: Response): Promise<StreamResponseDto> {
    const raw = requireItemArray(body, this.config.limits.streamActions, "actions");
    const data = await this.stream.accept(organization, raw, requestIdOf(request));
    retryAfterQueueFull(response, data);
    return { status: "success", data };
  }
}
