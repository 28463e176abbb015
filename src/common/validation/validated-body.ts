import { ApiError } from "../errors/api-error";
import { errorDetail } from "../errors/error-detail";
import { type ClassConstructor, validateItem } from "./validate-item";

/** A request body validated against its DTO, or the 400 that names what is wrong with it. */
export function validatedBody<T extends object>(dto: ClassConstructor<T>, body: unknown): T {
  if (body === null || typeof body !== "object" || Array.isArray(body)) {
    throw new ApiError(400, errorDetail("invalid_body", "The body must be a JSON object."));
  }
  const result = validateItem(dto, body);
  if (result.error) throw new ApiError(400, result.error);
  return result.value;
}
