import { Controller, Get, Param } from "@nestjs/common";
import { ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiTags } from "@nestjs/swagger";

import { type AuthenticatedOrganization, CurrentOrganization } from "../auth/authenticated-organization";
import { ApiCommonReadResponses } from "../common/http/api-responses";
import { ErrorBodyDto } from "../common/errors/error-body.dto";
import { ActionStatusDto } from "./dto/action-status.dto";
import { ActionsService } from "./actions.service";

@ApiTags("actions")
@Controller("api/v1/actions")
export class ActionsController {
  constructor(private readonly actions: ActionsService) {}

  @Get(":promise")
  @ApiOperation({ operationId: "getActionStatus", summary: "The status of an action by its txPromise or actionPromise" })
  @ApiOkResponse({ type: ActionStatusDto })
  @ApiNotFoundResponse({ type: ErrorBodyDto, description: "action_not_found (also for another organization's action)." })
  @ApiCommonReadResponses()
  status(@CurrentOrganization() organization: AuthenticatedOrganization, @Param("promise") promise: string): Promise<ActionStatusDto> {
    return this.actions.status(organization.id, promise);
  }
}
