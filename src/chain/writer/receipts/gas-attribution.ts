import type { ChainActionKind } from "../../../ledger/chain-action-kind";
import type { TransactionCharge } from "../../../ledger/usage-entries";

/** An item a final transaction carried, as the ledger knows it when the receipt is final. */
export interface CarriedItem {
  organizationId: string;
  ticketeerId: string;
  eventRef: string;
  kind: ChainActionKind;
  batchIndex: number;
  /** Its gas as the batch was planned; null for an item signed before planned gas was kept. */
  plannedGas: number | null;
}

/** The gas of one item, and its fee (its gas × the receipt's effective gas price). */
export interface ItemShare {
  item: CarriedItem;
  gas: bigint;
  feeWei: bigint;
}

/**
 * Splits a receipt's gas among the items its transaction carried in proportion to their planned gas,
 * by largest remainder: each item gets the floor of its exact share, and the gas left over (fewer
 * units than items) goes one unit each to the items with the largest remainders, the lower batch
 * index first on a tie. The shares are integers that add up to gasUsed exactly; each fee is its
 * share × effectiveGasPrice, so the fees add up to gasUsed × effectiveGasPrice exactly. Items whose
 * planned gas is unknown, or all zero, share equally.
 */
export function splitReceipt(gasUsed: bigint, effectiveGasPrice: bigint, items: readonly CarriedItem[]): ItemShare[] {
  if (items.length === 0) return [];
  const weights = weightsOf(items);
  const total = weights.reduce((sum, weight) => sum + weight, 0n);
  const exact = items.map((item, index) => ({ item, gas: (gasUsed * weights[index]) / total, remainder: (gasUsed * weights[index]) % total }));
  let left = gasUsed - exact.reduce((sum, share) => sum + share.gas, 0n);
  const byRemainder = [...exact].sort((a, b) => (a.remainder === b.remainder ? a.item.batchIndex - b.item.batchIndex : a.remainder > b.remainder ? -1 : 1));
  for (const share of byRemainder) {
    if (left === 0n) break;
    share.gas += 1n;
    left -= 1n;
  }
  return exact.map(({ item, gas }) => ({ item, gas, feeWei: gas * effectiveGasPrice }));
}

function weightsOf(items: readonly CarriedItem[]): bigint[] {
  const planned = items.every((item) => item.plannedGas !== null && item.plannedGas >= 0) ? items.map((item) => BigInt(item.plannedGas!)) : [];
  if (planned.length > 0 && planned.some((weight) => weight > 0n)) return planned;
  return items.map(() => 1n);
}

/** The shares summed per organization, event and kind: the rows usage_entries keeps of a transaction. */
export function chargesOf(shares: readonly ItemShare[]): TransactionCharge[] {
  const charges = new Map<string, TransactionCharge>();
  for (const { item, gas, feeWei } of shares) {
    const key = `${item.organizationId}:${item.eventRef}:${item.kind}`;
    const charge = charges.get(key);
    if (charge) {
      charge.gas += gas;
      charge.feeWei += feeWei;
    } else {
      charges.set(key, { organizationId: item.organizationId, eventRef: item.eventRef, kind: item.kind, gas, feeWei });
    }
  }
  return [...charges.values()];
}

/** The shares' gas summed per organization (by ticketeerId), for the gas counter. */
export function gasByOrganization(shares: readonly ItemShare[]): Map<string, bigint> {
  const gas = new Map<string, bigint>();
  for (const share of shares) gas.set(share.item.ticketeerId, (gas.get(share.item.ticketeerId) ?? 0n) + share.gas);
  return gas;
}
