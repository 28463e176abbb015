import { Injectable, Logger, type OnModuleDestroy, type OnModuleInit } from "@nestjs/common";
import { InjectMetric } from "@willsoto/nestjs-prometheus";
import type { Counter } from "prom-client";

import type { AppConfig } from "../config/app-config";
import { InjectConfig } from "../config/config.module";
import { METRICS } from "../metrics/metric-definitions";
import { RetentionStore } from "./retention.store";

const RUN_EVERY_MS = 10 * 60_000;
/**
 * Rows per statement: a few milliseconds of locks on rows nobody else wants (delivered callbacks,
 * final transactions), and a WAL burst the writer does not feel.
 */
export const RETENTION_BATCH = 2_000;
/** Between two batches the database serves the API and the writer alone for a while. */
const PAUSE_BETWEEN_BATCHES_MS = 100;

/** What one run pruned. */
export interface RetentionRun {
  callbacks: number;
  callbackAttempts: number;
  rawTransactions: number;
}

/**
 * Prunes what the service needs only for a while (CALLBACK_RETENTION_DAYS, RAW_TX_RETENTION_HOURS),
 * every 10 minutes on each worker, in batches of RETENTION_BATCH rows with a pause between them:
 * never a long lock, never a table rewrite. Workers running it at once skip each other's rows. What
 * is needed forever is never touched: the actions, their transactions' hashes and receipts, the
 * tickets and events, the usage entries, and every callback not yet delivered.
 */
@Injectable()
export class RetentionService implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger("Retention");
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<RetentionRun> | null = null;
  private stopping = false;

  constructor(
    private readonly store: RetentionStore,
    @InjectConfig() private readonly config: AppConfig,
    @InjectMetric(METRICS.retentionPruned.name) private readonly pruned: Counter<string>,
  ) {}

  onModuleInit(): void {
    this.timer = setInterval(() => void this.runOnce().catch((error: unknown) => this.logger.warn(`retention run failed: ${String(error)}`)), RUN_EVERY_MS);
    this.timer.unref();
  }

  onModuleDestroy(): void {
    this.stopping = true;
    clearInterval(this.timer);
  }

  /** One run to the end of what is due (a run already under way is joined, not doubled). */
  runOnce(): Promise<RetentionRun> {
    this.running ??= this.run().finally(() => (this.running = null));
    return this.running;
  }

  private async run(): Promise<RetentionRun> {
    const { callbackDays, rawTransactionHours } = this.config.retention;
    const done: RetentionRun = { callbacks: 0, callbackAttempts: 0, rawTransactions: 0 };
    await this.inBatches(async () => {
      const batch = await this.store.deleteDeliveredCallbacks(callbackDays, RETENTION_BATCH);
      done.callbacks += batch.callbacks;
      done.callbackAttempts += batch.attempts;
      this.pruned.inc({ kind: "callbacks" }, batch.callbacks);
      this.pruned.inc({ kind: "callback_attempts" }, batch.attempts);
      return batch.callbacks;
    });
    await this.inBatches(async () => {
      const cleared = await this.store.clearRawTransactions(rawTransactionHours, RETENTION_BATCH);
      done.rawTransactions += cleared;
      this.pruned.inc({ kind: "raw_transactions" }, cleared);
      return cleared;
    });
    if (done.callbacks + done.rawTransactions > 0) {
      this.logger.log(
        done,
        `deleted ${done.callbacks} delivered callbacks (${done.callbackAttempts} attempts) and cleared the bytes of ${done.rawTransactions} final transactions`,
      );
    }
    return done;
  }

  /** Batches until one comes back short (nothing more is due) or the application stops. */
  private async inBatches(batch: () => Promise<number>): Promise<void> {
    while (!this.stopping && (await batch()) === RETENTION_BATCH) {
      await new Promise((resolve) => setTimeout(resolve, PAUSE_BETWEEN_BATCHES_MS));
    }
  }
}
