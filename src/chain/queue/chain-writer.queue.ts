import { InjectQueue } from "@nestjs/bull";
import { Injectable } from "@nestjs/common";
import type { JobOptions, Queue } from "bull";

import type { AcceptedActionsNotifier } from "../../ledger/accepted-actions.notifier";

export const CHAIN_WRITER_QUEUE = "chain-writer";

export const ChainWriterJob = {
  /** Send the ledger's waiting actions to the chain. The job carries no actions: the ledger has them. */
  flush: "flush",
} as const;

export interface FlushJobData {
  reason: "accepted" | "sweep" | "busy" | "capacity" | "fees" | "funds" | "refusal" | "reconcile";
  /** The signer whose share of the ledger to send; absent: every signer's. */
  shard?: number;
}

/** How many finished jobs are kept is the queues' default (QUEUE_KEEP_FINISHED_JOBS, app.module.ts). */
const FLUSH_JOB_OPTIONS: JobOptions = {
  attempts: 5,
  backoff: { type: "exponential", delay: 1_000 },
};

/** The producer side of the chain writer's queue. */
@Injectable()
export class ChainWriterQueue implements AcceptedActionsNotifier {
  /** Per shard, when the follow-up flush this process asked for last is due (see requestFlushOnce). */
  private readonly followUpDue = new Map<number, number>();

  constructor(@InjectQueue(CHAIN_WRITER_QUEUE) private readonly queue: Queue<FlushJobData>) {}

  /** Wakes the writer for actions an acceptance just committed. */
  async actionsAccepted(): Promise<void> {
    await this.requestFlush("accepted");
  }

  async requestFlush(reason: FlushJobData["reason"], shard?: number, delayMs = 0): Promise<void> {
    await this.queue.add(ChainWriterJob.flush, shard === undefined ? { reason } : { reason, shard }, { ...FLUSH_JOB_OPTIONS, delay: delayMs });
  }

  /**
   * A flush of `shard` in `delayMs`, unless one this process asked for has not run yet: the one
   * already due runs after whatever made this request, so it sees the same ledger. Flushes that met
   * a busy signer would otherwise each add another, and jobs pile up in Redis as long as a flush runs.
   */
  async requestFlushOnce(reason: FlushJobData["reason"], shard: number, delayMs: number): Promise<void> {
    const now = Date.now();
    if (now < (this.followUpDue.get(shard) ?? 0)) return;
    this.followUpDue.set(shard, now + delayMs);
    await this.requestFlush(reason, shard, delayMs);
  }

  /** This process takes no more flush jobs (others may, and jobs can still be added); settles once its running ones have finished. */
  async stopProcessingHere(): Promise<void> {
    // Once the running jobs have finished Bull reconnects its blocking client, which fails while Redis
    // is unreachable: the jobs have finished all the same, and the queue's close ignores it too.
    await this.queue.pause(true).catch(() => undefined);
  }

  /** Whether a flush is already waiting to run, so a sweep need not add another. */
  async flushWaiting(): Promise<boolean> {
    const counts = await this.queue.getJobCounts();
    return counts.waiting + counts.delayed > 0;
  }
}
