import { Controller, Get, HttpCode, Param, Post } from "@nestjs/common";
import { ApiConflictResponse, ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiTags } from "@nestjs/swagger";

import { type AuthenticatedOrganization, CurrentOrganization } from "../auth/authenticated-organization";
import { ApiCommonReadResponses, ApiCommonWriteResponses } from "../common/http/api-responses";
import { CancelRefusedBodyDto, ErrorBodyDto } from "../common/errors/error-body.dto";
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

  @Post(":promise/cancel")
  @HttpCode(200)
  @ApiOperation({
    operationId: "cancelAction",
    summary: "Withdraw an action that has not gone out",
    description:
      "Succeeds while the action is waiting_broadcast or waiting_funds: it becomes cancelled (final), nothing of it goes on chain, no callback " +
      "is sent for it, and its ticket or event is as if it had never been accepted (a cancelled sale frees its ticketId, a cancelled claim " +
      "leaves the ticket checked in and unclaimed, a cancelled registration frees its eventId). Answers the action's status.",
  })
  @ApiOkResponse({ type: ActionStatusDto })
  @ApiNotFoundResponse({ type: ErrorBodyDto, description: "action_not_found (also for another organization's action)." })
  @ApiConflictResponse({
    type: CancelRefusedBodyDto,
    description:
      "action_not_cancellable: the action was signed already (pending or final), or a later accepted action depends on it (a sale with later " +
      "actions on its ticket, a registration with sales or updates, a check-in with a claim after it): blockedBy names that action.",
  })
  @ApiCommonWriteResponses()
  cancel(@CurrentOrganization() organization: AuthenticatedOrganization, @Param("promise") promise: string): Promise<ActionStatusDto> {
    return this.actions.cancel(organization.id, promise);
  }
}
