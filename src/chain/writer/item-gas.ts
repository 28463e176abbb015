import type { RegistryBatchItem } from "../registry";

/**
 * Upper bounds of the gas one item costs inside a batch, above the worst cases measured by
 * `npm run gas` (gas-snapshot.json): a sale 7,600, a resale of a ticket far from others about
 * 27,000, a claim to a new wallet 51,600, an event with 255-character strings 125,000.
 */
const ITEM_GAS: Record<RegistryBatchItem["action"], number> = {
  registerEvent: 190_000,
  updateEvent: 170_000,
  sold: 9_500,
  resold: 36_000,
  checkedIn: 3_000,
  invalidated: 3_000,
  claimed: 62_000,
};

/** The transaction's own cost: 21,000 intrinsic gas, the role and pause checks, the loop's setup. */
export const BATCH_BASE_GAS = 60_000;

export function itemGas(item: RegistryBatchItem): number {
  return ITEM_GAS[item.action];
}
