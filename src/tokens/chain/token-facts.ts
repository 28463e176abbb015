/** What a token's metadata shows, all of it read from the registry and its logs. */
import type { RegistryEventDetails } from "../../registry";

/** The state a token's metadata shows: one of five, in the words a fan reads. */
export type TokenState = "Valid" | "Checked in" | "Invalidated" | "Claimed" | "Event cancelled";

export const TOKEN_STATES: readonly TokenState[] = ["Valid", "Checked in", "Invalidated", "Claimed", "Event cancelled"];

/** An event's details as its last EventRegistered or EventUpdated log records them (coordinates in degrees; 0 when unset). */
export type EventFacts = RegistryEventDetails;

/** A minted token as the chain records it. */
export interface TokenFacts {
  tokenId: bigint;
  eventIndex: bigint;
  serial: bigint;
  state: TokenState;
  resales: number;
  /** The price of its last sale or resale in the event's currency, fixed point with the registry's 6 decimals; null if no such log was found. */
  lastPrice: bigint | null;
  /** Null if the event's registration log was not found (REGISTRY_FROM_BLOCK after it). */
  event: EventFacts | null;
}

/**
 * The registry's flags of a ticket as the one state a fan reads: its event's cancellation outranks
 * everything (the ticket is void, claimed or not), a claim the check-in it needs.
 */
export function stateOf(flags: { checkedIn: boolean; invalidated: boolean; claimed: boolean; eventCancelled: boolean }): TokenState {
  if (flags.eventCancelled) return "Event cancelled";
  if (flags.claimed) return "Claimed";
  if (flags.invalidated) return "Invalidated";
  if (flags.checkedIn) return "Checked in";
  return "Valid";
}
