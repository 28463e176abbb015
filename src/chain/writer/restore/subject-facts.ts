/** What the registry holds of one ticket, as its `tickets` view answers at a block. */
export interface ChainTicketFacts {
  minted: boolean;
  checkedIn: boolean;
  invalidated: boolean;
  claimed: boolean;
  /** The token's owner; null when it was never minted. */
  holder: string | null;
}

/** The tokens and event indexes whose actions the chain refused in the end. */
export interface FailedSubjects {
  tokenIds: bigint[];
  eventIndexes: bigint[];
}

/** What the registry holds of those subjects: each token's view, and each event index's key (null when nothing is registered there). */
export interface SubjectFacts {
  tickets: Map<bigint, ChainTicketFacts>;
  eventKeys: Map<bigint, string | null>;
}

/** Reads the registry's facts of failed subjects, as of the block the caller chose. */
export type SubjectFactsReader = (subjects: FailedSubjects) => Promise<SubjectFacts>;
