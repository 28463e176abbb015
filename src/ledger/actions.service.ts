import { Injectable } from "@nestjs/common";

import { ApiError } from "../common/errors/api-error";
import { errorDetail } from "../common/errors/error-detail";
import { ActionCancellationStore } from "./cancellation/action-cancellation.store";
import { ChainActionsStore } from "./chain-actions.store";
import type { ActionStatusDto } from "./dto/action-status.dto";
import { toActionView } from "./dto/action-view.dto";

@Injectable()
export class ActionsService {
  constructor(
    private readonly actions: ChainActionsStore,
    private readonly cancellations: ActionCancellationStore,
  ) {}

  /** `actionId` is what the integrator holds as txPromise or actionPromise. */
  async status(organizationId: string, actionId: string): Promise<ActionStatusDto> {
    const action = await this.actions.findByOrganizationAndId(organizationId, actionId);
    if (!action) throw notFound(actionId);
    return { ...toActionView(action), ...(await this.actions.subjectIdsOf(action)) };
  }

  /** Withdraws an action not signed yet; its status afterwards. */
  async cancel(organizationId: string, actionId: string): Promise<ActionStatusDto> {
    const result = UUID.test(actionId) ? await this.cancellations.cancel(organizationId, actionId.toLowerCase()) : { outcome: "not_found" as const };
    switch (result.outcome) {
      case "not_found":
        throw notFound(actionId);
      case "not_cancellable":
        throw new ApiError(
          409,
          errorDetail("action_not_cancellable", `Action ${actionId} is ${result.status}: only an action waiting_broadcast or waiting_funds can be cancelled.`),
        );
      case "blocked":
        throw new ApiError(409, errorDetail("action_not_cancellable", `Action ${actionId} cannot be cancelled: ${result.reason}. Cancel that one first.`), {
          blockedBy: result.blockedBy,
        });
      case "cancelled":
        return this.status(organizationId, actionId);
    }
  }
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function notFound(actionId: string): ApiError {
  return new ApiError(404, errorDetail("action_not_found", `No action has the promise ${actionId}.`));
}
