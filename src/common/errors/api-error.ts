import type { ErrorDetail } from "./error-detail";

/** A failure of the whole request; the exception filter turns it into the shared error body. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly detail: ErrorDetail,
    readonly extra: Record<string, unknown> = {},
  ) {
    super(detail.message);
    this.name = "ApiError";
  }
}
