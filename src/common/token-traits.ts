/**
 * The traits a token's JSON states from the chain (src/tokens/token-metadata.ts), in the order it
 * shows them. An integrator's attribute may never bear one of these names: a wallet would show it
 * beside, or instead of, what the registry records (a forged "State: Valid" on a used ticket).
 */
export const CHAIN_TRAIT_TYPES = [
  "Event",
  "Organizer",
  "Start",
  "End",
  "Venue latitude",
  "Venue longitude",
  "Ticket number",
  "State",
  "Resales",
  "Last price",
  "Currency",
] as const;

export type ChainTraitType = (typeof CHAIN_TRAIT_TYPES)[number];

/** How trait names are compared: case, surrounding spaces and compatibility forms (ｓｔａｔｅ) make no difference to a reader. */
export function traitKey(traitType: string): string {
  return traitType.normalize("NFKC").trim().toLowerCase();
}

const CHAIN_TRAIT_KEYS: ReadonlySet<string> = new Set(CHAIN_TRAIT_TYPES.map(traitKey));

/** Whether `traitType` names a trait the chain states. */
export function isChainTrait(traitType: string): boolean {
  return CHAIN_TRAIT_KEYS.has(traitKey(traitType));
}
