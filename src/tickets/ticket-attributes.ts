import { HIDDEN_CHARACTER } from "../common/validation/client-id";
import { characterCount, MAX_TEXT_LENGTH, textProblem } from "../common/validation/text";
import { isChainTrait } from "../common/token-traits";
import { ATTRIBUTE_DISPLAY_TYPES, type TicketAttribute } from "../registry";

export const MAX_ATTRIBUTES = 32;
export const MAX_TRAIT_TYPE_LENGTH = 64;

export interface AttributeProblem {
  /** The field in error, as a path: `attributes[3].traitType`. */
  field: string;
  message: string;
}

/**
 * Why `value` cannot be a ticket's attributes, or null: an array of at most MAX_ATTRIBUTES objects
 * `{traitType, value, displayType?}`. A traitType is 1 to 64 characters without hidden ones, and not
 * a trait the chain states (token-traits.ts), compared without case; a value is a string of at most
 * 255 characters or a finite number (1e999 parses to Infinity); a displayType is one of ATTRIBUTE_DISPLAY_TYPES
 * and, since each renders a number, comes with a numeric value; a null displayType counts as not sent.
 */
export function attributesProblem(value: unknown): AttributeProblem | null {
  if (!Array.isArray(value)) return { field: "attributes", message: "must be an array of {traitType, value, displayType?} objects" };
  if (value.length > MAX_ATTRIBUTES) {
    return { field: `attributes[${MAX_ATTRIBUTES}]`, message: `is one too many: a ticket has at most ${MAX_ATTRIBUTES} attributes` };
  }
  for (const [index, entry] of value.entries()) {
    const problem = entryProblem(entry);
    if (problem) return { field: `attributes[${index}]${problem.field}`, message: problem.message };
  }
  return null;
}

/**
 * The attributes as stored, from ones attributesProblem passed: each entry's own three fields, in the
 * integrator's order (other keys of an entry, like unknown fields of an item, are never stored).
 */
export function acceptedAttributes(attributes: readonly TicketAttribute[]): TicketAttribute[] {
  // A null displayType is JSON's way of leaving it out.
  return attributes.map(({ traitType, value, displayType }) => (displayType == null ? { traitType, value } : { traitType, value, displayType }));
}

function entryProblem(entry: unknown): AttributeProblem | null {
  if (entry === null || typeof entry !== "object" || Array.isArray(entry)) return { field: "", message: "must be a {traitType, value, displayType?} object" };
  const { traitType, value, displayType } = entry as Record<string, unknown>;
  const trait = traitTypeProblem(traitType);
  if (trait) return { field: ".traitType", message: trait };
  const valueText = valueProblem(value);
  if (valueText) return { field: ".value", message: valueText };
  if (displayType === undefined || displayType === null) return null;
  if (typeof displayType !== "string" || !(ATTRIBUTE_DISPLAY_TYPES as readonly string[]).includes(displayType)) {
    return { field: ".displayType", message: `must be one of ${ATTRIBUTE_DISPLAY_TYPES.join(", ")}` };
  }
  if (typeof value !== "number") return { field: ".value", message: `must be a number with displayType ${displayType}, which wallets render as a number` };
  return null;
}

function traitTypeProblem(traitType: unknown): string | null {
  if (typeof traitType !== "string") return "must be a string";
  if (traitType.trim() === "") return "must not be blank";
  if (characterCount(traitType) > MAX_TRAIT_TYPE_LENGTH) return `must be at most ${MAX_TRAIT_TYPE_LENGTH} characters (Unicode code points)`;
  const text = textProblem(traitType);
  if (text) return text;
  if (HIDDEN_CHARACTER.test(traitType)) return "must not contain control, bidirectional or zero-width characters";
  if (isChainTrait(traitType)) return `must not be "${traitType.trim()}": the token states that trait from the chain, and no attribute may stand beside it`;
  return null;
}

function valueProblem(value: unknown): string | null {
  if (typeof value === "number") return Number.isFinite(value) ? null : "must be a finite number";
  if (typeof value !== "string") return `must be a string of at most ${MAX_TEXT_LENGTH} characters or a finite number`;
  if (characterCount(value) > MAX_TEXT_LENGTH) return `must be at most ${MAX_TEXT_LENGTH} characters (Unicode code points)`;
  return textProblem(value);
}
