import { type ArgumentMetadata, Injectable, type PipeTransform } from "@nestjs/common";

import { ApiError } from "../errors/api-error";
import { invalidField } from "../errors/error-detail";
import { textProblem } from "../validation/text";

/**
 * Path and query parameters are strings like any field: one holding a NUL (`/tickets/a%00b`) or a
 * lone surrogate would reach PostgreSQL and fail there as a 500. Refused first, with 400 invalid_field.
 * Bodies are left to the endpoints, which refuse such strings item by item.
 */
@Injectable()
export class TextParamsPipe implements PipeTransform {
  transform(value: unknown, metadata: ArgumentMetadata): unknown {
    if (metadata.type !== "param" && metadata.type !== "query") return value;
    const problem = firstProblem(value, metadata.data ?? metadata.type);
    if (problem) throw new ApiError(400, invalidField(problem.field, problem.message));
    return value;
  }
}

function firstProblem(value: unknown, field: string): { field: string; message: string } | null {
  if (typeof value === "string") {
    const message = textProblem(value);
    return message ? { field, message } : null;
  }
  if (Array.isArray(value)) {
    for (const entry of value) {
      const problem = firstProblem(entry, field);
      if (problem) return problem;
    }
    return null;
  }
  if (value !== null && typeof value === "object") {
    for (const [key, entry] of Object.entries(value)) {
      const problem = firstProblem(entry, key);
      if (problem) return problem;
    }
  }
  return null;
}
