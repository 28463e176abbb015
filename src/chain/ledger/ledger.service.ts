import { Injectable, Logger } from "@nestjs/common";
import { InjectDataSource } from "@nestjs/typeorm";
import { InjectMetric } from "@willsoto/nestjs-prometheus";
import type { Counter } from "prom-client";
import { DataSource, type EntityManager } from "typeorm";

import type { AuthenticatedOrganization } from "../../auth/authenticated-organization";
import { EventWorkingSet } from "../../events/event-working-set";
import { countActionOutcomes } from "../../metrics/action-outcomes";
import { METRICS } from "../../metrics/metric-definitions";
import { TicketWorkingSet } from "../../tickets/ticket-working-set";
import { ChainWriterQueue } from "../chain-writer.queue";
import { AcceptanceConflict } from "./acceptance-conflict";
import type { AcceptanceContext, AcceptancePlan, ItemOutcome } from "./acceptance-context";
import { ActionRecorder } from "./action-recorder";
import { mergeOutcomes, type RequestedItem, validateItems } from "./item-acceptance";

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
 * only once its row is committed; a lost queue message is recovered by the sweep.
 */
@Injectable()
export class LedgerService {
  private readonly logger = new Logger(LedgerService.name);

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly chainWriter: ChainWriterQueue,
    @InjectMetric(METRICS.actions.name) private readonly actionsCounter: Counter<string>,
  ) {}

  /**
   * Validates and accepts the items of one request, in order: each gets its promise or its error;
   * a refused item never stops the others.
   */
  async acceptItems(organization: AuthenticatedOrganization, items: readonly RequestedItem[], requestId: string | null): Promise<ItemOutcome[]> {
    const { valid, refused, plan } = validateItems(items);
    const accepted =
      valid.length === 0
        ? new Map<number, ItemOutcome>()
        : await this.accept(
            organization,
            plan,
            (context) => new Map(valid.map(({ position, item, input }) => [position, item.descriptor!.apply(context, input, item.requestedAs)])),
            requestId,
          );
    const outcomes = mergeOutcomes(items.length, accepted, refused);
    countActionOutcomes(this.actionsCounter, items, outcomes);
    // Logged inside the request, so the line carries its requestId; the ledger rows carry it too.
    const acceptedCount = outcomes.filter((outcome) => outcome.promise !== undefined).length;
    this.logger.debug({ items: items.length, accepted: acceptedCount }, `accepted ${acceptedCount} of ${items.length} actions`);
    return outcomes;
  }

  async accept<T>(organization: AuthenticatedOrganization, plan: AcceptancePlan, evaluate: (context: AcceptanceContext) => T, requestId: string | null): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        const optimistic = attempt === 1;
        const { result, broadcasts } = await this.dataSource.transaction((manager) =>
          this.acceptOnce(manager, organization, optimistic ? plan : { ...plan, ticketIds: [...plan.ticketIds, ...plan.soldTicketIds] }, evaluate, requestId),
        );
        if (broadcasts > 0) await this.notifyWriter();
        return result;
      } catch (error) {
        if (attempt >= MAX_ATTEMPTS || !isRetryable(error)) throw error;
        this.logger.debug(`acceptance attempt ${attempt} retried: ${(error as Error).message}`);
      }
    }
  }

  private async acceptOnce<T>(
    manager: EntityManager,
    organization: AuthenticatedOrganization,
    plan: AcceptancePlan,
    evaluate: (context: AcceptanceContext) => T,
    requestId: string | null,
  ): Promise<{ result: T; broadcasts: number }> {
    const context: AcceptanceContext = {
      organization,
      now: BigInt(Math.floor(Date.now() / 1000)),
      events: new EventWorkingSet(manager, organization.id),
      tickets: new TicketWorkingSet(manager, organization.id),
      actions: new ActionRecorder(manager, organization.id, requestId),
    };
    // Events before tickets, each in id order: every acceptance takes its locks in the same order.
    await context.events.load(unique(plan.eventIds), plan.newEvents);
    await context.tickets.load(unique(plan.ticketIds));
    const result = evaluate(context);
    await context.events.flush();
    await context.tickets.flush();
    await context.actions.flush();
    return { result, broadcasts: context.actions.broadcastCount };
  }

  /** The actions are committed: if Redis is unreachable now, the sweep queues them later. */
  private async notifyWriter(): Promise<void> {
    try {
      await withTimeout(this.chainWriter.requestFlush("accepted"), NOTIFY_TIMEOUT_MS);
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

function unique(values: string[]): string[] {
  return [...new Set(values)];
}
