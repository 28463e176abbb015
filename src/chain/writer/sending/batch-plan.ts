import { BATCH_BASE_GAS, itemGas, storageGas } from "./item-gas";
import { MetadataSignals } from "./metadata-signals";
import { encodedItemOf, type PendingAction } from "./pending-action";

/**
 * Bytes of a signed `execute(bytes)` transaction besides its items: the EIP-1559 envelope with its
 * signature (at most about 190 bytes of RLP) and the ABI's selector, offset, length and padding
 * (at most 99). An upper bound, so that a planned batch never exceeds the byte limit once signed.
 */
export const TRANSACTION_OVERHEAD_BYTES = 300;

/** What one transaction may carry: production nodes refuse more gas than the cap and more bytes than the limit. */
export interface BatchLimits {
  gas: number;
  bytes: number;
  /**
   * Gas added per byte of items, on top of the measured per-item figures (which already pay for
   * their calldata): set once a node answered `intrinsic gas too low`, to cover a calldata price
   * such as EIP-7623's floor. 0 unless learned.
   */
  calldataGasPerByte?: number;
}

export interface BatchPlan {
  actions: PendingAction[];
  /** Each action's planned gas, in the order of `actions`: what the receipt's gas and fee are split by (see src/usage). */
  plannedGas: number[];
  gasLimit: number;
  /** More actions wait than the budget took: send at once instead of waiting for more. */
  full: boolean;
  /** The first waiting action, when it alone exceeds a limit: it can never be sent and fails as an item. */
  tooLarge?: { action: PendingAction; reason: string };
}

/** An action the registry's codec refuses: it can never be sent. */
export interface UnencodableItem {
  action: PendingAction;
  reason: string;
}

/**
 * The longest prefix of `waiting` (acceptance order is never broken) whose estimated gas fits the
 * gas budget and whose signed transaction fits the byte limit. Actions the codec refuses are left
 * out of it and added to `unencodable` (they fail on their own); only the actions the plan reaches
 * are encoded.
 */
export function planBatch(waiting: readonly PendingAction[], limits: BatchLimits, unencodable: UnencodableItem[] = []): BatchPlan {
  let gas = BATCH_BASE_GAS;
  let bytes = TRANSACTION_OVERHEAD_BYTES;
  const actions: PendingAction[] = [];
  const plannedGas: number[] = [];
  const touched = new Set<string>();
  const signals = new MetadataSignals();
  for (const action of waiting) {
    let encoded: string;
    try {
      encoded = encodedItemOf(action);
    } catch (error) {
      unencodable.push({ action, reason: (error as Error).message });
      continue;
    }
    const storage = storageGas(action.item, touched);
    const size = (encoded.length - 2) / 2;
    const cost = itemGas(action.item) + storage.gas + signals.gasOf(action.item) + size * (limits.calldataGasPerByte ?? 0);
    if (gas + cost > limits.gas || bytes + size > limits.bytes) {
      if (actions.length === 0)
        return { actions, plannedGas, gasLimit: 0, full: true, tooLarge: { action, reason: tooLargeReason(gas + cost, bytes + size, limits) } };
      return { actions, plannedGas, gasLimit: gas, full: true };
    }
    gas += cost;
    bytes += size;
    for (const slot of storage.slots) touched.add(slot);
    signals.take(action.item);
    actions.push(action);
    plannedGas.push(cost);
  }
  return { actions, plannedGas, gasLimit: gas, full: false };
}

function tooLargeReason(gas: number, bytes: number, limits: BatchLimits): string {
  return gas > limits.gas
    ? `the item alone needs about ${gas} gas, above the ${limits.gas} one transaction may use`
    : `the item alone makes a transaction of about ${bytes} bytes, above the ${limits.bytes} one transaction may carry`;
}
