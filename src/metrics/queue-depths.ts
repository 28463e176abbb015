import { Injectable } from "@nestjs/common";
import { DiscoveryService } from "@nestjs/core";
import Bull, { type JobCounts, type Queue } from "bull";
import type { Gauge } from "prom-client";

import { ScrapeRead } from "./scrape-read";

export type QueueDepthsSnapshot = { queue: string; counts: JobCounts }[];

const READ_TIMEOUT_MS = 3_000;

/** The job counts of every Bull queue the application registered, found by discovery so a new queue is counted too. */
@Injectable()
export class QueueDepths {
  private readonly snapshot: ScrapeRead<QueueDepthsSnapshot>;
  private queues: Queue[] | null = null;

  constructor(private readonly discovery: DiscoveryService) {
    this.snapshot = new ScrapeRead("the queue depths", () => this.readCounts(), READ_TIMEOUT_MS);
  }

  read(): Promise<QueueDepthsSnapshot | null> {
    return this.snapshot.get();
  }

  private async readCounts(): Promise<QueueDepthsSnapshot> {
    return Promise.all(this.registeredQueues().map(async (queue) => ({ queue: queue.name, counts: await queue.getJobCounts() })));
  }

  /** Looked up at the first scrape, when every provider exists; one per name (two modules may register the same queue). */
  private registeredQueues(): Queue[] {
    if (!this.queues) {
      const found = this.discovery.getProviders().flatMap((wrapper) => (wrapper.instance instanceof Bull ? [wrapper.instance] : []));
      this.queues = [...new Map(found.map((queue) => [queue.name, queue])).values()];
    }
    return this.queues;
  }
}

export function fillQueueJobs(gauge: Gauge, snapshot: QueueDepthsSnapshot): void {
  for (const { queue, counts } of snapshot) {
    for (const [state, count] of Object.entries(counts)) gauge.set({ queue, state }, Number(count));
  }
}
