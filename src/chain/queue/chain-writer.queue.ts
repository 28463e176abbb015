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
  reason: "accepted" | "sweep" | "busy" | "capacity" | "fees" | "funds" | "refusal";
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
  constructor(@InjectQueue(CHAIN_WRITER_QUEUE) private readonly queue: Queue<FlushJobData>) {}

  /** Wakes the writer for actions an acceptance just committed. */
  async actionsAccepted(): Promise<void> {
    await this.requestFlush("accepted");
  }

  async requestFlush(reason: FlushJobData["reason"], shard?: number, delayMs = 0): Promise<void> {
    await this.queue.add(ChainWriterJob.flush, shard === undefined ? { reason } : { reason, shard }, { ...FLUSH_JOB_OPTIONS, delay: delayMs });
  }

  /** Whether a flush is already waiting to run, so a sweep need not add another. */
  async flushWaiting(): Promise<boolean> {
    const counts = await this.queue.getJobCounts();
    return counts.waiting + counts.delayed > 0;
  }
}
