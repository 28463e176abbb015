/**
 * What `npm run bench`'s gas figures are made of, as contracts/scripts/gas-figures.ts hands them to
 * bench/gas-figures.ts in JSON: the contract workspace measures (Hardhat 3, an ES module package) and
 * the benchmark, a CommonJS process that cannot load Hardhat, reads. Types only, shared by both sides.
 */
export type TicketAction = "sold" | "resold" | "scanned" | "invalidated" | "claimed";

/**
 * Gas per ticket of the reference contracts (contracts/src/bench/ReferenceTickets.sol) at a batch of
 * 100; contracts/scripts/reference-gas.ts says how each is measured.
 */
export interface ReferenceGas {
  /** OpenZeppelin ERC721, each ticket minted to its own holder. */
  ozSoldToHolders: number;
  /** OpenZeppelin ERC721, minted to custody (the contract itself), as TicketRegistry sells. */
  ozSoldToCustody: number;
  /** ERC721A, one `_mint(holder, 1)` per ticket, each to its own holder. */
  erc721aSoldToHolders: number;
  /** ERC721A, the whole batch in one `_mint(custody, 100)`: its best case. */
  erc721aSoldToCustody: number;
  /** One BitMap bit and one log per ticket (on the OpenZeppelin reference). */
  bitmapScanned: number;
  bitmapInvalidated: number;
  /** transferFrom(custody, new wallet) of tokens sold to custody. */
  ozClaimed: number;
  erc721aClaimed: number;
}

/** What a run measures: the registry's figures, the reference contracts' beside them, and the targets they are held to. */
export interface GasFigures {
  actions: readonly TicketAction[];
  targets: Record<TicketAction | "registerEvent" | "cancelEvent", number>;
  snapshot: Record<TicketAction, Record<"1" | "10" | "100", number>> & { registerEvent: number; cancelEvent: Record<"1" | "100" | "5000", number> };
  reference: ReferenceGas;
}
