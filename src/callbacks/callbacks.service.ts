import { Injectable } from "@nestjs/common";

import { ApiError } from "../common/errors/api-error";
import { errorDetail } from "../common/errors/error-detail";
import { CallbackOutboxStore } from "./callback-outbox.store";
import { type CallbackFilter, CallbacksStore } from "./callbacks.store";
import type { CallbackViewDto } from "./dto/callback-view.dto";
import { redeliveryFilterOf, type RedeliveryResultDto } from "./dto/redeliver-callbacks.dto";

export const CALLBACK_STATUSES = ["pending", "delivered", "failed"] as const;

/** The delivery log an organization sees, and redelivery on request. */
@Injectable()
export class CallbacksService {
  constructor(
    private readonly callbacks: CallbacksStore,
    private readonly outbox: CallbackOutboxStore,
  ) {}

  list(organizationId: string, filter: CallbackFilter): Promise<CallbackViewDto[]> {
    return this.callbacks.listForOrganization(organizationId, filter);
  }

  async find(organizationId: string, callbackId: string): Promise<CallbackViewDto> {
    const callback = await this.callbacks.findForOrganization(organizationId, callbackId);
    if (!callback) throw notFound(callbackId);
    return callback;
  }

  /** Sends the callback again now, with a fresh retry schedule; its webhook-id stays the same. */
  async redeliver(organizationId: string, callbackId: string): Promise<CallbackViewDto> {
    const outcome = await this.outbox.scheduleRedelivery(organizationId, callbackId);
    if (outcome === "not_found") throw notFound(callbackId);
    if (outcome === "receiver_disabled") throw receiverDisabled(callbackId);
    return this.find(organizationId, callbackId);
  }

  /** Sends again every callback of the organization that the filter (the request body) takes; how many were queued. */
  redeliverMatching(organizationId: string, body: unknown): Promise<RedeliveryResultDto> {
    return this.outbox.scheduleRedeliveries(organizationId, redeliveryFilterOf(body));
  }
}

function receiverDisabled(callbackId: string): ApiError {
  return new ApiError(
    409,
    errorDetail(
      "receiver_disabled",
      `The receiver of callback ${callbackId} is disabled: enable it again (PATCH /api/v1/webhooks/{webhookId} with enabled: true, or an updateEvent with a callbackUrl), then redeliver.`,
    ),
  );
}

/** Also for another organization's callback: its existence is not the caller's to know. */
function notFound(callbackId: string): ApiError {
  return new ApiError(404, errorDetail("callback_not_found", `No callback has the id ${callbackId}.`));
}
