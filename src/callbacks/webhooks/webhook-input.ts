import { ApiError } from "../../common/errors/api-error";
import { errorDetail } from "../../common/errors/error-detail";
import { validatedBody } from "../../common/validation/validated-body";
import { CreateWebhookDto, UpdateWebhookDto } from "./dto/webhook-body.dto";

/** A new endpoint as the store takes it. */
export interface NewWebhook {
  url: string;
  /** null: every action. */
  actions: string[] | null;
  description: string;
}

/** The fields a PATCH changes; absent ones stay. */
export interface WebhookChanges {
  url?: string;
  actions?: string[] | null;
  description?: string;
  enabled?: boolean;
}

const CHANGEABLE = ["url", "actions", "description", "enabled"] as const;

/** POST /api/v1/webhooks's body, validated: 400 naming the field otherwise. Unknown fields are ignored, as everywhere. */
export function newWebhookOf(body: unknown): NewWebhook {
  const input = validatedBody(CreateWebhookDto, body);
  return { url: input.url, actions: input.actions ?? null, description: input.description ?? "" };
}

/** PATCH /api/v1/webhooks/{webhookId}'s body, validated; `actions: null` is kept (every action), unlike other nulls. */
export function webhookChangesOf(body: unknown): WebhookChanges {
  const input = validatedBody(UpdateWebhookDto, body);
  const changes: WebhookChanges = {};
  for (const field of CHANGEABLE) if (input[field] !== undefined) Object.assign(changes, { [field]: input[field] });
  if ((body as Record<string, unknown>).actions === null) changes.actions = null;
  if (Object.keys(changes).length === 0) {
    throw new ApiError(400, errorDetail("invalid_body", `Nothing to change: send at least one of ${CHANGEABLE.join(", ")}.`));
  }
  return changes;
}
