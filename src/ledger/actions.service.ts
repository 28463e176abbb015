import { Injectable } from "@nestjs/common";
import { InjectDataSource } from "@nestjs/typeorm";
import { DataSource } from "typeorm";

import { ChainActionsRepository } from "./chain-actions.repository";
import { toActionView } from "./dto/action-view.dto";
import { ApiError } from "../common/errors/api-error";
import { errorDetail } from "../common/errors/error-detail";
import type { ActionStatusDto } from "./dto/action-status.dto";

@Injectable()
export class ActionsService {
  constructor(
    private readonly actions: ChainActionsRepository,
    @InjectDataSource() private readonly dataSource: DataSource,
  ) {}

  async status(organizationId: string, promise: string): Promise<ActionStatusDto> {
    const action = await this.actions.findByOrganizationAndPromise(organizationId, promise);
    if (!action) throw new ApiError(404, errorDetail("action_not_found", `No action has the promise ${promise}.`));
    const [ids] = (await this.dataSource.query(
      `SELECT e.event_id, t.ticket_id FROM events e LEFT JOIN tickets t ON t.id = $2 WHERE e.id = $1`,
      [action.eventRef, action.ticketRef],
    )) as { event_id: string; ticket_id: string | null }[];
    return { ...toActionView(action), eventId: ids.event_id, ticketId: ids.ticket_id };
  }
}
