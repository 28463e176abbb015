import { Injectable } from "@nestjs/common";

import { ApiError } from "../common/errors/api-error";
import { errorDetail } from "../common/errors/error-detail";
import { ChainActionsStore } from "./chain-actions.store";
import type { ActionStatusDto } from "./dto/action-status.dto";
import { toActionView } from "./dto/action-view.dto";

@Injectable()
export class ActionsService {
  constructor(private readonly actions: ChainActionsStore) {}

  /** `actionId` is what the integrator holds as txPromise or actionPromise. */
  async status(organizationId: string, actionId: string): Promise<ActionStatusDto> {
    const action = await this.actions.findByOrganizationAndId(organizationId, actionId);
    if (!action) throw new ApiError(404, errorDetail("action_not_found", `No action has the promise ${actionId}.`));
    return { ...toActionView(action), ...(await this.actions.subjectIdsOf(action)) };
  }
}
