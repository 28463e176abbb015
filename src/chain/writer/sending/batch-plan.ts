import { BATCH_BASE_GAS, itemGas, storageGas } from "./item-gas";
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
  const touched = new Set<string>();
  for (const action of waiting) {
    const storage = storageGas(action.item, touched);
    const cost = itemGas(action.item) + storage.gas;
    if (gas + cost > budget) break;
    gas += cost;
    for (const slot of storage.slots) touched.add(slot);
    actions.push(action);
  }
  return { actions, gasLimit: gas, full: actions.length < waiting.length };
}
