import { Body, Controller, HttpCode, Post, Req } from "@nestjs/common";
import { ApiBody, ApiOkResponse, ApiOperation, ApiTags } from "@nestjs/swagger";
import type { Request } from "express";

import { type AuthenticatedOrganization, CurrentOrganization } from "../auth/authenticated-organization";
import { ApiCommonWriteResponses } from "../common/http/api-responses";
import { requireItemArray } from "../common/http/item-array";
import { requestIdOf } from "../common/http/request-id";
import type { AppConfig } from "../config/app-config";
import { InjectConfig } from "../config/config.module";
import { StreamActionDto, StreamResponseDto } from "./dto/stream-action.dto";
import { StreamService } from "./stream.service";

export const STREAM_PATHS = ["stream", "api/v1/stream"];

@ApiTags("stream")
@Controller()
export class StreamController {
  constructor(
    private readonly stream: StreamService,
    @InjectConfig() private readonly config: AppConfig,
  ) {}

  @Post(STREAM_PATHS)
  @HttpCode(200)
  @ApiOperation({
    summary: "Register a mixed list of actions",
    description:
      "Up to 5000 actions, processed in the order sent, in one transaction: a newEvent, then its soldTicket, then its scannedTicket in one request all succeed. Served at /stream and /api/v1/stream.",
  })
  @ApiBody({ type: [StreamActionDto] })
  @ApiOkResponse({ type: StreamResponseDto })
  @ApiCommonWriteResponses()
  async accept(@CurrentOrganization() organization: AuthenticatedOrganization, @Body() body: unknown, @Req() request: Request): Promise<StreamResponseDto> {
    const raw = requireItemArray(body, this.config.limits.streamActions, "actions");
    return { status: "success", data: await this.stream.accept(organization, raw, requestIdOf(request)) };
  }
}
