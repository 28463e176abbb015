import type { AuthenticatedOrganization } from "../../auth/authenticated-organization";
import type { ErrorDetail } from "../../common/errors/error-detail";
import type { EventWorkingSet } from "../../events/event-working-set";
import type { TicketWorkingSet } from "../../tickets/ticket-working-set";
import type { ActionRecorder } from "./action-recorder";

/** What the ids of a request need loaded and locked before its actions are evaluated. */
export interface AcceptancePlan {
  eventIds: string[];
  /** Tickets the actions act on: loaded and locked. */
  ticketIds: string[];
  /**
   * Tickets the request sells. They are expected not to exist, so the first attempt does not look
   * them up; one that does exist fails the insert, and the attempt that follows loads them all.
   */
  soldTicketIds: string[];
  /** How many events the request may create: their registry indexes are reserved up front. */
  newEvents: number;
}

/**
 * One acceptance: the state the request's actions read and change, in order, inside one database
 * transaction. Rules run synchronously against it; nothing reaches the database until all ran.
 */
export interface AcceptanceContext {
  organization: AuthenticatedOrganization;
  /** Unix seconds when the request was accepted: the default orderTime. */
  now: bigint;
  events: EventWorkingSet;
  tickets: TicketWorkingSet;
  actions: ActionRecorder;
}

/** The outcome of one item: its promise id, or why it was refused. */
export type ItemOutcome = { promise: string; error?: undefined } | { promise?: undefined; error: ErrorDetail };
