import { ApiError } from "../errors/api-error";
import { errorDetail } from "../errors/error-detail";

/** A request body that is not a JSON array of at most `limit` items fails as a whole, with 400. */
export function requireItemArray(body: unknown, limit: number, noun: string): unknown[] {
  if (!Array.isArray(body)) throw new ApiError(400, errorDetail("invalid_body", `The request body must be a JSON array of ${noun}.`));
  if (body.length > limit) {
    throw new ApiError(400, errorDetail("too_many_items", `At most ${limit} ${noun} per request; this one has ${body.length}.`));
  }
  return body;
}

/** A request body that is not one JSON object (an array, a string, null) fails as a whole, with 400 invalid_body. */
export function requireObjectBody(body: unknown, noun: string): Record<string, unknown> {
  if (body === null || typeof body !== "object" || Array.isArray(body)) {
    throw new ApiError(400, errorDetail("invalid_body", `The request body must be a JSON object: ${noun}.`));
  }
  return body as Record<string, unknown>;
}
