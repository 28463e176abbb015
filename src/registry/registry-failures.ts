/** Reasons of `ItemFailed` logs; the values are ITicketRegistry.ItemFailure's, in its order. */
export enum RegistryItemFailure {
  None = 0,
  EventExists = 1,
  EventUnknown = 2,
  TicketExists = 3,
  TicketUnknown = 4,
  TicketCheckedIn = 5,
  TicketNotCheckedIn = 6,
  TicketInvalidated = 7,
  TicketClaimed = 8,
  PriceNotRepresentable = 9,
  InvalidReceiver = 10,
  ResaleLimitReached = 11,
  InvalidEventIndex = 12,
  InvalidSerial = 13,
  EventCancelled = 14,
}

/** `TicketCheckedIn` → `onchain_ticket_checked_in`. */
function failureCodeOf(name: string): string {
  return "onchain_" + name.replace(/([a-z])([A-Z])/g, "$1_$2").toLowerCase();
}

/** A reason number the registry's ABI does not name (a newer contract): the item failed all the same. */
const UNNAMED_FAILURE_CODE = "onchain_refused";

/** The stable code of an item the registry refused with `reason`. */
export function chainFailureCode(reason: RegistryItemFailure): string {
  const name = RegistryItemFailure[reason] as string | undefined;
  return name === undefined ? UNNAMED_FAILURE_CODE : failureCodeOf(name);
}

/**
 * Every `error.code` an accepted action can end with: the registry's refusals of an item, a
 * transaction that kept reverting, an item the writer cannot encode, and one too large for the node.
 */
export const ACTION_ERROR_CODES = [
  ...Object.keys(RegistryItemFailure)
    .filter((name) => Number.isNaN(Number(name)) && name !== "None")
    .map(failureCodeOf),
  UNNAMED_FAILURE_CODE,
  "onchain_reverted",
  "onchain_unencodable",
  "onchain_item_too_large",
] as const;
