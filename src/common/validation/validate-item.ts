import { type ValidationError, validateSync } from "class-validator";

import { errorDetail, type ErrorDetail, invalidField } from "../errors/error-detail";
import { compiledCheck } from "./compiled-check";
import { longTextFieldsOf } from "./field-decorators";
import { MAX_LONG_TEXT_UTF8_BYTES, textProblem } from "./text";

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
  const check = compiledCheck(dto);
  if (check) {
    // Only the declared fields, as class-validator's whitelist leaves them, null ones not sent (as
    // below); an item the check does not pass goes to class-validator, which names its error.
    const instance = Object.create(dto.prototype as object) as Record<string, unknown>;
    for (const key in raw) {
      const value = (raw as Record<string, unknown>)[key];
      if (value !== null && check.properties.has(key) && Object.prototype.hasOwnProperty.call(raw, key)) instance[key] = value;
    }
    if (check.passes(instance as T)) return storable(dto, instance as T);
  }
  return validateWithClassValidator(dto, raw);
}

/** validateItem without the compiled check: class-validator on every item (what the check must agree with). */
export function validateWithClassValidator<T extends object>(dto: ClassConstructor<T>, raw: object): Validated<T> {
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
  if (!first) return storable(dto, instance as T);
  const message = Object.values(first.constraints ?? {})[0] ?? `${first.property} is invalid`;
  return { error: errorDetail("invalid_field", message, fieldOf(first, instance)) };
}

/** The field an error names: the property, or the path inside it a pathed rule found (`attributes[3].traitType`). */
function fieldOf(error: ValidationError, instance: Record<string, unknown>): string {
  for (const context of Object.values(error.contexts ?? {})) {
    const fieldOfValue = (context as { fieldOf?: unknown } | undefined)?.fieldOf;
    if (typeof fieldOfValue === "function") return (fieldOfValue as (value: unknown) => string | undefined)(instance[error.property]) ?? error.property;
  }
  return error.property;
}

/** Every string the item keeps (unknown fields are gone by now) must be storable text; long text fields take more bytes. */
function storable<T extends object>(dto: ClassConstructor<T>, instance: T): Validated<T> {
  const longText = longTextFieldsOf(dto);
  for (const [field, value] of Object.entries(instance)) {
    const problem = typeof value === "string" ? textProblem(value, longText.has(field) ? MAX_LONG_TEXT_UTF8_BYTES : undefined) : null;
    if (problem) return { error: invalidField(field, problem) };
  }
  return { value: instance };
}
