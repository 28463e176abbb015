import { Injectable, Logger } from "@nestjs/common";
import { InjectDataSource } from "@nestjs/typeorm";
import { InjectMetric } from "@willsoto/nestjs-prometheus";
import type { Counter } from "prom-client";
import { DataSource, type EntityManager } from "typeorm";

import type { AuthenticatedOrganization } from "../auth/authenticated-organization";
import { transactionHook } from "../common/transaction-hook";
import type { AppConfig } from "../config/app-config";
import { InjectConfig } from "../config/config.module";
import { countActionOutcomes } from "../metrics/action-outcomes";
import { METRICS } from "../metrics/metric-definitions";
import { AcceptanceConflict } from "./acceptance-conflict";
import type { AcceptanceContext, AcceptedStateKind, ItemOutcome } from "./acceptance-context";
import { AcceptedActionsNotifier } from "./accepted-actions.notifier";
import { CoalescedNotification } from "./coalesced-notification";
import { ActionRecorder } from "./action-recorder";
import { mergeOutcomes, type RequestedItem, validateItems, type ValidatedItems } from "./item-acceptance";
import { OrganizationQueueStore, type QueueRoom } from "./organization-queue.store";
import { queueFull } from "./queue-full";

const MAX_ATTEMPTS = 5;
/** A request never waits long on Redis: its actions are already safe in the ledger. */
const NOTIFY_TIMEOUT_MS = 1_000;
/**
 * Serialization failure and deadlock: PostgreSQL asks for the transaction to be tried again. A
 * unique violation means a concurrent request created the same id first: evaluated again, the
 * request sees it and refuses that item.
 */
const RETRYABLE_SQLSTATES = new Set(["40001", "40P01", "23505"]);

/**
 * Accepts a request's actions: evaluates them in order against locked state and writes the state
 * and the ledger rows in one transaction, then asks the chain writer to run. An action is accepted
 * only once its row is committed; a lost queue message is recovered by the sweep. An organization
 * has at most ORG_MAX_QUEUED_ACTIONS actions accepted and not yet on chain: the room is reserved
 * before the transaction (OrganizationQueueStore), and the items that would go on chain beyond it
 * are refused `queue_full`, each on its own.
 */
@Injectable()
export class LedgerService {
  private readonly logger = new Logger(LedgerService.name);
  /** Acceptances committed while the writer is being told share the next telling. */
  private readonly writerNotification: CoalescedNotification;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    notifier: AcceptedActionsNotifier,
    @InjectMetric(METRICS.actions.name) private readonly actionsCounter: Counter<string>,
    private readonly queue: OrganizationQueueStore,
    @InjectConfig() private readonly config: AppConfig,
  ) {
    // The timeout bounds each telling, not only each request's wait: a hung one must not hold up the next.
    this.writerNotification = new CoalescedNotification(() => withTimeout(notifier.actionsAccepted(), NOTIFY_TIMEOUT_MS));
  }

  /**
   * Validates and accepts the items of one request, in order, against the accepted state of
   * `kind`: each gets its action id or its error; a refused item never stops the others.
   */
  async acceptItems<Plan, Parts extends object>(
    kind: AcceptedStateKind<Plan, Parts>,
    organization: AuthenticatedOrganization,
    items: readonly RequestedItem<Plan, Parts>[],
    requestId: string | null,
  ): Promise<ItemOutcome[]> {
    const plan = kind.emptyPlan();
    const { valid, refused } = validateItems(items, plan);
    const accepted = valid.length === 0 ? new Map<number, ItemOutcome>() : await this.acceptValid(kind, organization, plan, valid, requestId);
    const outcomes = mergeOutcomes(items.length, accepted, refused);
    countActionOutcomes(this.actionsCounter, items, outcomes);
    // Logged inside the request, so the line carries its requestId; the ledger rows carry it too.
    const acceptedCount = outcomes.filter((outcome) => outcome.actionId !== undefined).length;
    this.logger.debug({ items: items.length, accepted: acceptedCount }, `accepted ${acceptedCount} of ${items.length} actions`);
    return outcomes;
  }

  /** The valid items within the room their organization's queue has for them; the room is given back if the acceptance fails. */
  private async acceptValid<Plan, Parts extends object>(
    kind: AcceptedStateKind<Plan, Parts>,
    organization: AuthenticatedOrganization,
    plan: Plan,
    valid: ValidatedItems<Plan, Parts>,
    requestId: string | null,
  ): Promise<Map<number, ItemOutcome>> {
    const limit = this.config.limits.organizationQueuedActions;
    const room = await this.queue.reserve(organization.id, valid.length, limit);
    const evaluate = (context: AcceptanceContext<Parts>) =>
      new Map(
        valid.map(({ position, item, input }) => {
          const descriptor = item.descriptor!;
          // Checked before the rule runs: a rule changes the accepted state as it accepts.
          const full = context.actions.broadcastCount >= room.room && !descriptor.staysOffChain?.(input);
          return [position, full ? { error: queueFull(limit) } : descriptor.apply(context, input, item.requestedAs)];
        }),
      );
    try {
      return await this.accept(kind, organization, plan, evaluate, requestId, room);
    } catch (error) {
      await this.queue.release(room).catch((release: unknown) => this.logger.warn(`queue room not released, it expires: ${(release as Error).message}`));
      throw error;
    }
  }

  private async accept<Plan, Parts extends object, T>(
    kind: AcceptedStateKind<Plan, Parts>,
    organization: AuthenticatedOrganization,
    plan: Plan,
    evaluate: (context: AcceptanceContext<Parts>) => T,
    requestId: string | null,
    room: QueueRoom,
  ): Promise<T> {
    let reserved = plan;
    for (let attempt = 1; ; attempt++) {
      try {
        // Outside the transaction, so that it never waits for a pool connection while holding one.
        if (kind.reserve) reserved = await kind.reserve(this.dataSource.manager, organization.id, reserved);
        const attemptPlan = attempt === 1 ? reserved : kind.retryPlan(reserved);
        const { result, broadcasts } = await this.dataSource.transaction((manager) =>
          this.acceptOnce(manager, kind, organization, attemptPlan, evaluate, requestId, room),
        );
        if (broadcasts > 0) await this.notifyWriter();
        return result;
      } catch (error) {
        if (attempt >= MAX_ATTEMPTS || !isRetryable(error)) throw error;
        this.logger.debug(`acceptance attempt ${attempt} retried: ${(error as Error).message}`);
      }
    }
  }

  private async acceptOnce<Plan, Parts extends object, T>(
    manager: EntityManager,
    kind: AcceptedStateKind<Plan, Parts>,
    organization: AuthenticatedOrganization,
    plan: Plan,
    evaluate: (context: AcceptanceContext<Parts>) => T,
    requestId: string | null,
    room: QueueRoom,
  ): Promise<{ result: T; broadcasts: number }> {
    const state = kind.open(manager, organization.id);
    const actions = new ActionRecorder(manager, organization.id, requestId);
    // The state takes its locks in a fixed order (events before tickets, each in id order).
    await state.load(plan);
    const context = { ...state.parts, organization, now: BigInt(Math.floor(Date.now() / 1000)), actions } as AcceptanceContext<Parts>;
    const result = evaluate(context);
    await state.flush();
    await actions.flush();
    // The request's own step inside the transaction (an Idempotency-Key marks itself applied), when
    // it applied something: a request whose every item was refused may be sent again as it is.
    if (actions.count > 0) await transactionHook()?.(manager);
    await state.settle?.();
    // The reservation ends as the rows it made room for, and their count, commit.
    await this.queue.settle(manager, room);
    return { result, broadcasts: actions.broadcastCount };
  }

  /** The actions are committed: if Redis is unreachable now, the sweep queues them later. */
  private async notifyWriter(): Promise<void> {
    try {
      await withTimeout(this.writerNotification.notify(), NOTIFY_TIMEOUT_MS);
    } catch (error) {
      this.logger.warn(`chain writer not notified, the sweep will pick the actions up: ${(error as Error).message}`);
    }
  }
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer from Redis within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

function isRetryable(error: unknown): boolean {
  if (error instanceof AcceptanceConflict) return true;
  const code = (error as { code?: unknown; driverError?: { code?: unknown } }).driverError?.code ?? (error as { code?: unknown }).code;
  return typeof code === "string" && RETRYABLE_SQLSTATES.has(code);
}
