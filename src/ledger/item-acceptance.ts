import type { ErrorDetail } from "../common/errors/error-detail";
import { validateItem } from "../common/validation/validate-item";
import type { ItemOutcome } from "./acceptance-context";
import type { ActionDescriptor } from "./action-descriptor";

/** One item of a request: the rule set it is validated and accepted with, and its raw JSON. */
export interface RequestedItem<Plan, Parts extends object> {
  descriptor: ActionDescriptor<object, Plan, Parts> | null;
  requestedAs: string;
  raw: unknown;
  /** Set when the item was refused before validation (an unknown stream action, say). */
  refusal?: ErrorDetail;
}

export type ValidatedItems<Plan, Parts extends object> = { position: number; item: RequestedItem<Plan, Parts>; input: object }[];

/** Validates every item; returns the valid ones, the refusals by position, and what to load. */
export function validateItems<Plan, Parts extends object>(
  items: readonly RequestedItem<Plan, Parts>[],
  plan: Plan,
): { valid: ValidatedItems<Plan, Parts>; refused: Map<number, ErrorDetail> } {
  const valid: ValidatedItems<Plan, Parts> = [];
  const refused = new Map<number, ErrorDetail>();
  items.forEach((item, position) => {
    if (item.refusal || !item.descriptor) {
      refused.set(position, item.refusal ?? { code: "invalid_item", message: "The item cannot be processed." });
      return;
    }
    const checked = validateItem(item.descriptor.dto, item.raw);
    if (checked.error) {
      refused.set(position, checked.error);
      return;
    }
    item.descriptor.plan(checked.value, plan);
    valid.push({ position, item, input: checked.value });
  });
  return { valid, refused };
}

/** Outcomes in request order: accepted ones from `accepted`, the rest from `refused`. */
export function mergeOutcomes(count: number, accepted: Map<number, ItemOutcome>, refused: Map<number, ErrorDetail>): ItemOutcome[] {
  return Array.from({ length: count }, (_, position) => accepted.get(position) ?? { error: refused.get(position) as ErrorDetail });
}
