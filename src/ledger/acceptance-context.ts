import type { EntityManager } from "typeorm";

import type { AuthenticatedOrganization } from "../auth/authenticated-organization";
import type { ErrorDetail } from "../common/errors/error-detail";
import type { ActionRecorder } from "./action-recorder";

/**
 * The accepted state a request's actions read and change (its events; its events and tickets),
 * inside the ledger's transaction: loaded and locked before any rule runs, written after all ran.
 * `parts` is what the rules see beside the recorder (`context.events`, `context.tickets`).
 */
export interface AcceptedState<Plan, Parts extends object> {
  readonly parts: Parts;
  load(plan: Plan): Promise<void>;
  flush(): Promise<void>;
  /**
   * The last writes before the commit, after the ledger rows: short updates of rows that many
   * concurrent acceptances share (a count), held from here to the commit only.
   */
  settle?(): Promise<void>;
}

/**
 * One kind of accepted state, as a feature module defines it: what its plan starts as, and how it
 * is opened in a transaction. The ledger knows no feature; features hand it their kind.
 */
export interface AcceptedStateKind<Plan, Parts extends object> {
  emptyPlan(): Plan;
  /** The plan of an attempt after a conflict: it loads what the optimistic first attempt assumed absent. */
  retryPlan(plan: Plan): Plan;
  /**
   * Runs before each attempt, outside its transaction, on the data source's manager: reservations
   * that must not hold rows for the length of an acceptance (serials), returned in the plan. What it
   * reserves survives the attempt; an unused reservation is a harmless gap.
   */
  reserve?(manager: EntityManager, organizationId: string, plan: Plan): Promise<Plan>;
  open(manager: EntityManager, organizationId: string): AcceptedState<Plan, Parts>;
}

/**
 * One acceptance as the rules see it: the accepted state's parts, the organization, the time of
 * acceptance and the recorder of ledger rows. Rules run synchronously against it.
 */
export type AcceptanceContext<Parts extends object> = Parts & {
  organization: AuthenticatedOrganization;
  /** Unix seconds when the request was accepted: the default orderTime. */
  now: bigint;
  actions: ActionRecorder;
};

/** The outcome of one item: its action id (the integrator's promise), or why it was refused. */
export type ItemOutcome = { actionId: string; error?: undefined } | { actionId?: undefined; error: ErrorDetail };
