import { BATCH_BASE_GAS, itemGas } from "./item-gas";
import type { PendingAction } from "./pending-action";

export interface BatchPlan {
  actions: PendingAction[];
  gasLimit: number;
  /** More actions wait than the budget took: send at once instead of waiting for more. */
  full: boolean;
}

/** The longest prefix of `waiting` (acceptance order is never broken) whose estimated gas fits `budget`. */
export function planBatch(waiting: readonly PendingAction[], budget: number): BatchPlan {
  let gas = BATCH_BASE_GAS;
  const actions: PendingAction[] = [];
  for (const action of waiting) {
    const cost = itemGas(action.item);
    if (gas + cost > budget) break;
    gas += cost;
    actions.push(action);
  }
  return { actions, gasLimit: gas, full: actions.length < waiting.length };
}
