import type { ClassConstructor } from "../common/validation/validate-item";
import type { AcceptanceContext, ItemOutcome } from "./acceptance-context";

/**
 * How one kind of action is validated, what it needs loaded, and the rule that accepts it. A
 * descriptor written for a smaller state (events only) serves in a larger one (events and tickets).
 */
export interface ActionDescriptor<T extends object, Plan, Parts extends object> {
  dto: ClassConstructor<T>;
  /** Adds the ids the action reads to the acceptance plan. */
  plan(input: T, plan: Plan): void;
  apply(context: AcceptanceContext<Parts>, input: T, requestedAs: string): ItemOutcome;
  /**
   * Whether the action is recorded with nothing for the chain (an updateEvent of its callbackUrl
   * only): it takes no room in its organization's queue and is accepted when the queue is
   * full. Absent: it may go on chain.
   */
  staysOffChain?(input: T): boolean;
}

export function describeAction<T extends object, Plan, Parts extends object>(descriptor: ActionDescriptor<T, Plan, Parts>): ActionDescriptor<T, Plan, Parts> {
  return descriptor;
}
