import type { Response } from "express";

import { errorDetail, type ErrorDetail } from "../common/errors/error-detail";

/**
 * What a `queue_full` answer's Retry-After says: about what the writer takes off a full queue in that
 * time on a production-like chain (2-second blocks, a few thousand sales a block), so that a retry
 * finds room rather than a full queue again.
 */
export const QUEUE_FULL_RETRY_AFTER_SECONDS = 5;

export function queueFull(limit: number): ErrorDetail {
  return errorDetail(
    "queue_full",
    `At most ${limit} actions of an organization may be accepted and not yet on chain, and yours has that many: this action was not accepted. Send it again after Retry-After seconds.`,
  );
}

/** Sets Retry-After on an answer in which any item (an outcome, or an entry of the answer) was refused queue_full. */
export function retryAfterQueueFull(response: Response, items: readonly { error?: { code: string } }[]): void {
  if (items.some((item) => item.error?.code === "queue_full")) response.setHeader("Retry-After", String(QUEUE_FULL_RETRY_AFTER_SECONDS));
}

/** Retry-After on an accepting endpoint's 200, as the OpenAPI document says it. */
export const QUEUE_FULL_RETRY_AFTER_HEADER = {
  "Retry-After": {
    description: "Present when an item was refused queue_full: seconds to wait before sending those items again.",
    schema: { type: "integer", minimum: 1 },
  },
};
