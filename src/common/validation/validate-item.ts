import { validateSync } from "class-validator";

import { errorDetail, type ErrorDetail, invalidField } from "../errors/error-detail";
import { textProblem } from "./text";

/** A DTO class: what an item is validated against. */
export type ClassConstructor<T> = new (...args: never[]) => T;

export type Validated<T> = { value: T; error?: undefined } | { value?: undefined; error: ErrorDetail };

/**
 * Validates one item of a request against its DTO. Fields the DTO does not declare are dropped
 * (never stored), null values count as not sent; the first broken rule is reported with its field.
 * A string holding a NUL or a lone UTF-16 surrogate is an invalid_field too, whatever its rules.
 */
export function validateItem<T extends object>(dto: ClassConstructor<T>, raw: unknown): Validated<T> {
  if (raw === null || typeof raw !== "object" || Array.isArray(raw)) {
    return { error: errorDetail("invalid_item", "Each item must be a JSON object.") };
  }
  // The DTOs are flat: a copy onto the prototype is all a class transformer would do, at a fraction of the cost.
  // null means "not sent" (optional fields get their defaults; the rules read undefined). "__proto__" and
  // "constructor" are never fields: copied, they would replace or hide the DTO's prototype.
  const instance = Object.create(dto.prototype as object) as Record<string, unknown>;
  for (const [key, value] of Object.entries(raw)) {
    if (value !== null && key !== "__proto__" && key !== "constructor") instance[key] = value;
  }
  const errors = validateSync(instance, {
    whitelist: true,
    forbidUnknownValues: true,
    stopAtFirstError: true,
    validationError: { target: false, value: false },
  });
  const first = errors[0];
  if (!first) {
    // Every string the item keeps (unknown fields are gone by now) must be storable text.
    for (const [field, value] of Object.entries(instance)) {
      const problem = typeof value === "string" ? textProblem(value) : null;
      if (problem) return { error: invalidField(field, problem) };
    }
    return { value: instance as T };
  }
  const message = Object.values(first.constraints ?? {})[0] ?? `${first.property} is invalid`;
  return { error: errorDetail("invalid_field", message, first.property) };
}
