import type { ErrorDetail } from "../../common/errors/error-detail";
import { validateItem } from "../../common/validation/validate-item";
import type { AcceptancePlan, ItemOutcome } from "./acceptance-context";
import type { ActionDescriptor } from "./action-descriptor";

/** One item of a request: the rule set it is validated and accepted with, and its raw JSON. */
export interface RequestedItem {
  descriptor: ActionDescriptor<object> | null;
  requestedAs: string;
  raw: unknown;
  /** Set when the item was refused before validation (an unknown stream action, say). */
  refusal?: ErrorDetail;
}

export type ValidatedItems = { position: number; item: RequestedItem; input: object }[];

/** Validates every item; returns the valid ones, the refusals by position, and what to load. */
export function validateItems(items: readonly RequestedItem[]): { valid: ValidatedItems; refused: Map<number, ErrorDetail>; plan: AcceptancePlan } {
  const valid: ValidatedItems = [];
  const refused = new Map<number, ErrorDetail>();
  const plan: AcceptancePlan = { eventIds: [], ticketIds: [], soldTicketIds: [], newEvents: 0 };
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
  return { valid, refused, plan };
}

/** Outcomes in request order: accepted ones from `accepted`, the rest from `refused`. */
export function mergeOutcomes(count: number, accepted: Map<number, ItemOutcome>, refused: Map<number, ErrorDetail>): ItemOutcome[] {
  return Array.from({ length: count }, (_, position) => accepted.get(position) ?? { error: refused.get(position) as ErrorDetail });
}
