/** What the registry holds of one ticket, as its `tickets` view answers at a block. */
export interface ChainTicketFacts {
  minted: boolean;
  checkedIn: boolean;
  invalidated: boolean;
  claimed: boolean;
  /** The token's owner; null when it was never minted. */
  holder: string | null;
}

/** The tokens whose actions the chain refused in the end. */
export interface FailedSubjects {
  tokenIds: bigint[];
}

/** What the registry holds of those tokens. */
export interface SubjectFacts {
  tickets: Map<bigint, ChainTicketFacts>;
}

/** Reads the registry's facts of failed subjects, as of the block the caller chose. */
export type SubjectFactsReader = (subjects: FailedSubjects) => Promise<SubjectFacts>;
