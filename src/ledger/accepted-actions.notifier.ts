/**
 * Told after a committed acceptance has actions for the chain. The chain module provides it (its
 * writer queue), so the ledger depends on no consumer of its rows.
 */
export abstract class AcceptedActionsNotifier {
  abstract actionsAccepted(): Promise<void>;
}
