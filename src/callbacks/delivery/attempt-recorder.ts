import type { Logger } from "@nestjs/common";

import type { AttemptResult, CallbackOutboxStore } from "../callback-outbox.store";
import type { ReceiverHealth } from "../webhooks/receiver-health";
import { attemptOutcome, type FinishedAttempt, type JudgedAttempt, type RetryPolicy } from "./callback-delivery";
import { logDelivery } from "./delivery-log";
import type { DeliveryMetrics } from "./delivery-metrics";

/** How long results may wait before they are written, so a busy dispatcher writes them in bulk. */
const RESULT_FLUSH_MS = 25;

/**
 * Records finished attempts in batches: their metrics, then one write of the attempt log and the
 * callbacks' new states, then what they say of their receivers (ReceiverHealth), then a log line
 * each. One write at a time, in the order the attempts finished.
 */
export class AttemptRecorder {
  private waiting: FinishedAttempt[] = [];
  private timer: NodeJS.Timeout | undefined;
  private writing: Promise<void> = Promise.resolve();

  constructor(
    private readonly outbox: CallbackOutboxStore,
    private readonly metrics: DeliveryMetrics,
    private readonly policy: RetryPolicy,
    private readonly health: Pick<ReceiverHealth, "record">,
    /** The dispatcher's logger: operators find every delivery line under its name. */
    private readonly logger: Logger,
    /** Called after each write: a ticket's next callback waits for the previous one's first attempt. */
    private readonly onRecorded: () => void,
  ) {}

  add(attempt: FinishedAttempt): void {
    this.waiting.push(attempt);
    this.timer ??= setTimeout(() => void this.flush(), RESULT_FLUSH_MS);
  }

  /** Writes the attempts waiting now; resolves once every write so far is done. */
  flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    const batch = this.waiting;
    this.waiting = [];
    if (batch.length > 0) this.writing = this.writing.then(() => this.record(batch)).then(() => this.onRecorded());
    return this.writing;
  }

  private async record(batch: FinishedAttempt[]): Promise<void> {
    const judged: JudgedAttempt[] = batch.map((attempt) => ({ ...attempt, ...attemptOutcome(attempt, this.policy) }));
    for (const { callback, answer, status } of judged) {
      this.metrics.attempted({ statusCode: answer.statusCode, durationMs: answer.durationMs, result: status, createdAt: callback.createdAt });
    }
    try {
      await this.outbox.recordAttempts(judged.map(attemptResult));
    } catch (error) {
      // Unrecorded attempts come back when their lease ends: a callback may be sent twice, never lost.
      this.logger.warn(`recording ${batch.length} callback attempts failed: ${(error as Error).message}`);
      for (const attempt of judged) logAttempt(this.logger, attempt);
      return;
    }
    try {
      await this.health.record(judged);
    } catch (error) {
      // The receivers' failure state waits for their next attempts; nothing of the callbacks is lost.
      this.logger.warn(`recording what ${batch.length} callback attempts say of their receivers failed: ${(error as Error).message}`);
    }
    for (const attempt of judged) logAttempt(this.logger, attempt);
  }
}

function attemptResult({ callback, answer, startedAt, status, nextAttemptAt }: JudgedAttempt): AttemptResult {
  return {
    callbackId: callback.id,
    startedAt,
    durationMs: answer.durationMs,
    url: callback.callbackUrl,
    statusCode: answer.statusCode,
    error: answer.error,
    status,
    nextAttemptAt,
  };
}

function logAttempt(logger: Logger, { callback, answer, status, nextAttemptAt }: JudgedAttempt): void {
  logDelivery(logger, {
    callbackId: callback.id,
    actionId: callback.actionId,
    requestId: callback.requestId,
    attempt: callback.attempts + 1,
    url: callback.callbackUrl,
    statusCode: answer.statusCode,
    error: answer.error,
    durationMs: answer.durationMs,
    answerRead: answer.answerRead,
    status,
    nextAttemptAt,
  });
}
