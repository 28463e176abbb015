import { Injectable } from "@nestjs/common";

import type { AuthenticatedOrganization } from "../auth/authenticated-organization";
import type { RequestedItem } from "../ledger/item-acceptance";
import { TICKET_ACCEPTANCE, type TicketParts, type TicketPlan } from "../tickets/ticket-acceptance";
import { LedgerService } from "../ledger/ledger.service";
import { errorDetail } from "../common/errors/error-detail";
import { rawId } from "../common/http/raw-ids";
import type { StreamResultDto } from "./dto/stream-action.dto";
import { isStreamAction, STREAM_ACTION_NAMES, STREAM_ACTIONS } from "./stream-actions";

/** Splits a mixed list into actions and accepts them in order, in one transaction. */
@Injectable()
export class StreamService {
  constructor(private readonly ledger: LedgerService) {}

  async accept(organization: AuthenticatedOrganization, raw: unknown[], requestId: string | null): Promise<StreamResultDto[]> {
    const items = raw.map(toRequestedItem);
    const outcomes = await this.ledger.acceptItems(TICKET_ACCEPTANCE, organization, items, requestId);
    return outcomes.map((outcome, position) => {
      const result = { status: outcome.error ? "error" : "success", action: actionName(raw[position]), ...echoedIds(raw[position]) } as StreamResultDto;
      if (outcome.error) result.error = outcome.error;
      else result.actionPromise = outcome.actionId;
      return result;
    });
  }
}

/** The items of /stream are accepted against events and tickets together. */
type StreamItem = RequestedItem<TicketPlan, TicketParts>;

function toRequestedItem(entry: unknown): StreamItem {
  if (entry === null || typeof entry !== "object" || Array.isArray(entry)) {
    return { descriptor: null, requestedAs: "", raw: entry, refusal: errorDetail("invalid_item", "Each entry must be an object with action and data.") };
  }
  const { action, data } = entry as { action?: unknown; data?: unknown };
  if (!isStreamAction(action)) {
    return {
      descriptor: null,
      requestedAs: "",
      raw: data,
      refusal: errorDetail("unknown_action", `action must be one of ${STREAM_ACTION_NAMES.join(", ")}.`, "action"),
    };
  }
  if (data === null || typeof data !== "object" || Array.isArray(data)) {
    return { descriptor: null, requestedAs: action, raw: data, refusal: errorDetail("invalid_field", "data must be an object.", "data") };
  }
  return { descriptor: STREAM_ACTIONS[action].descriptor, requestedAs: action, raw: data };
}

function actionName(entry: unknown): string | null {
  const action = (entry as { action?: unknown } | null)?.action;
  return typeof action === "string" ? action : null;
}

function echoedIds(entry: unknown): Pick<StreamResultDto, "eventId" | "ticketId"> {
  const action = (entry as { action?: unknown } | null)?.action;
  const data = (entry as { data?: unknown } | null)?.data;
  if (!isStreamAction(action)) return {};
  return Object.fromEntries(STREAM_ACTIONS[action].echoes.map((field) => [field, rawId(data, field)]));
}
