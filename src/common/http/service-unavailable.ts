import type { Response } from "express";

import { errorDetail, type ErrorDetail } from "../errors/error-detail";

/** How long a client is asked to wait before retrying a request a missing dependency refused. */
export const DEPENDENCY_RETRY_AFTER_SECONDS = 5;

/** The answer while PostgreSQL cannot be reached: nothing was applied, the request may be sent again. */
export const DATABASE_UNAVAILABLE: ErrorDetail = errorDetail(
  "service_unavailable",
  "The database cannot be reached just now; nothing of the request was applied. Send it again after Retry-After seconds.",
);

/** 503 with Retry-After and the shared error body. */
export function sendServiceUnavailable(response: Response, detail: ErrorDetail, retryAfterSeconds = DEPENDENCY_RETRY_AFTER_SECONDS): void {
  response.setHeader("Retry-After", String(retryAfterSeconds));
  response.status(503).json({ status: "error", error: detail });
}
