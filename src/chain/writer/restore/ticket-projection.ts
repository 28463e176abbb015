import type { ChainTicketFacts } from "./subject-facts";

/** One of a ticket's actions that did not fail, in acceptance order, as the ledger has it. */
export interface LiveTicketAction {
  kind: string;
  /** Whether the chain may still apply it (waiting for the writer, or in a transaction not closed yet). */
  open: boolean;
  payload: { price?: string; orderTime?: string; to?: string } | null;
}

/** A ticket's accepted state as the chain holds it and will hold it once the actions on their way are applied. */
export interface ProjectedTicket {
  /** False when the ledger's sale of it failed: the ticket is released. */
  sold: boolean;
  checkedIn: boolean;
  invalidated: boolean;
  claimed: boolean;
  claimedTo: string | null;
  resales: number;
  /** Of the last sale or resale that counts; null to keep the ticket's own. */
  price: string | null;
  orderTime: string | null;
}

/**
 * Starts from what the registry holds, then applies the actions still on their way in order, each only
 * where the registry's rules let it apply (an invalidated ticket is never checked in, a checked-in one
 * never invalidated or resold, a claim needs a checked-in, valid, unclaimed ticket): the ones it will
 * refuse change nothing here, and restore their own subject when they fail. The actions already final
 * are in the chain's facts; the ledger gives what those facts do not carry (resales, price, receiver).
 */
export function projectTicket(chain: ChainTicketFacts, actions: readonly LiveTicketAction[]): ProjectedTicket {
  const sale = actions.find((action) => action.kind === "sold");
  const state: ProjectedTicket = {
    sold: sale !== undefined && (chain.minted || sale.open),
    checkedIn: chain.checkedIn,
    invalidated: chain.invalidated,
    claimed: chain.claimed,
    claimedTo: chain.claimed ? (lastClaimTo(actions.filter((action) => !action.open)) ?? chain.holder) : null,
    resales: 0,
    price: null,
    orderTime: null,
  };
  for (const action of actions) {
    if (action.open) applyOnTheWay(state, action);
    else if (action.kind === "resold") countResale(state, action);
    if (action.kind === "sold") setPrice(state, action);
  }
  return state;
}

function applyOnTheWay(state: ProjectedTicket, action: LiveTicketAction): void {
  const movable = !state.checkedIn && !state.invalidated && !state.claimed;
  if (action.kind === "scanned" && !state.invalidated) state.checkedIn = true;
  if (action.kind === "invalidated" && movable) state.invalidated = true;
  if (action.kind === "resold" && movable) countResale(state, action);
  if (action.kind === "claimed" && state.checkedIn && !state.invalidated && !state.claimed) {
    state.claimed = true;
    state.claimedTo = action.payload?.to ?? null;
  }
}

function countResale(state: ProjectedTicket, action: LiveTicketAction): void {
  state.resales += 1;
  setPrice(state, action);
}

function setPrice(state: ProjectedTicket, action: LiveTicketAction): void {
  state.price = action.payload?.price ?? state.price;
  state.orderTime = action.payload?.orderTime ?? state.orderTime;
}

function lastClaimTo(actions: readonly LiveTicketAction[]): string | null {
  return actions.filter((action) => action.kind === "claimed").at(-1)?.payload?.to ?? null;
}
