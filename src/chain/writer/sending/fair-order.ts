import { itemGas } from "./item-gas";
import type { PendingAction } from "./pending-action";

/**
 * How many turns of each organization one batch's gas budget holds: the quantum of fairOrder is
 * the budget divided by this. Smaller turns interleave more organizations in each batch; each turn
 * is a run of one organization's items, so more turns also mean more runs for the registry to switch
 * between (priced by MetadataSignals).
 */
export const TURNS_PER_BATCH = 8;

/**
 * The waiting actions in the order a batch takes them: deficit round robin over organizations, so
 * that one organization's backlog never holds back another's actions. The organizations take turns
 * in the order of their oldest waiting action; each turn an organization is given `quantum` gas
 * more and takes its next actions, in its own acceptance order, while their per-item gas (itemGas)
 * fits what it has been given; what it could not spend carries to its next turn. Each organization's
 * actions keep their order (and so do their dependencies: a sale after its event's registration, a
 * check-in after its sale, all within one organization); only organizations are interleaved.
 * `waiting` is in acceptance order.
 */
export function fairOrder(waiting: readonly PendingAction[], quantum: number): PendingAction[] {
  const byOrganization = new Map<string, PendingAction[]>();
  for (const action of waiting) {
    const lane = byOrganization.get(action.organizationId);
    if (lane) lane.push(action);
    else byOrganization.set(action.organizationId, [action]);
  }
  if (byOrganization.size <= 1) return [...waiting];
  const lanes = [...byOrganization.values()].map((actions) => ({ actions, next: 0, deficit: 0 }));
  const order: PendingAction[] = [];
  while (lanes.length > 0) {
    for (let i = 0; i < lanes.length;) {
      const lane = lanes[i];
      lane.deficit += quantum;
      while (lane.next < lane.actions.length && itemGas(lane.actions[lane.next].item) <= lane.deficit) {
        lane.deficit -= itemGas(lane.actions[lane.next].item);
        order.push(lane.actions[lane.next++]);
      }
      if (lane.next === lane.actions.length) lanes.splice(i, 1);
      else i++;
    }
  }
  return order;
}

/** Whether an organization had as many waiting actions read as its share: more of its may wait. */
export function anyOrganizationAtShare(waiting: readonly PendingAction[], perOrganization: number): boolean {
  const counts = new Map<string, number>();
  for (const action of waiting) {
    const count = (counts.get(action.organizationId) ?? 0) + 1;
    if (count >= perOrganization) return true;
    counts.set(action.organizationId, count);
  }
  return false;
}
