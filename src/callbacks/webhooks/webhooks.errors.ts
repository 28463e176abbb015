import { ApiError } from "../../common/errors/api-error";
import { errorDetail } from "../../common/errors/error-detail";
import { MAX_WEBHOOKS_PER_ORGANIZATION } from "./webhook-actions";

export const WebhookErrors = {
  /** Also for another organization's endpoint: its existence is not the caller's to know. */
  notFound: (webhookId: string): ApiError => new ApiError(404, errorDetail("webhook_not_found", `No webhook endpoint has the id ${webhookId}.`, "webhookId")),
  limitReached: (): ApiError =>
    new ApiError(
      409,
      errorDetail("webhook_limit_reached", `An organization has at most ${MAX_WEBHOOKS_PER_ORGANIZATION} webhook endpoints: delete one before adding another.`),
    ),
};
