import type { ClassConstructor } from "class-transformer";

import type { AcceptanceContext, AcceptancePlan, ItemOutcome } from "./acceptance-context";

/** How one kind of action is validated, what it needs loaded, and the rule that accepts it. */
export interface ActionDescriptor<T extends object> {
  dto: ClassConstructor<T>;
  /** Adds the ids the action reads to the acceptance plan. */
  plan(input: T, plan: AcceptancePlan): void;
  apply(context: AcceptanceContext, input: T, requestedAs: string): ItemOutcome;
}

export function describeAction<T extends object>(descriptor: ActionDescriptor<T>): ActionDescriptor<T> {
  return descriptor;
}
