import type { ActionKind, Expectation } from "./action-planner";

export interface AcceptedAction {
  kind: ActionKind;
  expect: Expectation;
  acceptedAt: number;
  /** What it acts on: its ticket, and its event (its own, or its ticket's). */
  ticketId?: string;
  eventId?: string;
}

export interface RequestSample {
  route: string;
  startedAt: number;
  ms: number;
  actions: number;
  /** Answered 200 (or, for /api/v1/events, with an item status). */
  answered: boolean;
  /** The HTTP status, or null when no answer came (a cut connection, the timeout). */
  status: number | null;
}

/** Everything the load generator sent and what the service answered: the run's own account, checked against the ledger. */
export class LoadRecord {
  readonly accepted = new Map<string, AcceptedAction>();
  readonly refused: { kind: ActionKind; code: string }[] = [];
  /** Actions refused at acceptance as the load meant them to be (claims to a custody address). */
  intendedRefusals = 0;
  /** `sentAt` when its request was sent, `at` when it failed (an error answer, a cut connection or the timeout). */
  readonly unanswered: { kind: ActionKind; reason: string; sentAt: number; at: number }[] = [];
  readonly requests: RequestSample[] = [];
  plannedActions = 0;
  /** Actions a tick did not send because too many requests were still open (the service fell behind the rate). */
  skippedActions = 0;
  startedAt = 0;
  endedAt = 0;
}
