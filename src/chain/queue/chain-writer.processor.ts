import { Process, Processor } from "@nestjs/bull";
import type { OnApplicationShutdown } from "@nestjs/common";
import type { Job } from "bull";

import { ChainWriter } from "../writer/sending/chain-writer";
import { CHAIN_WRITER_QUEUE, ChainWriterJob, ChainWriterQueue, type FlushJobData } from "./chain-writer.queue";

/** Thin: a flush job names a signer (or all); the writer reads the work from the ledger. */
@Processor(CHAIN_WRITER_QUEUE)
export class ChainWriterProcessor implements OnApplicationShutdown {
  constructor(
    private readonly writer: ChainWriter,
    private readonly queue: ChainWriterQueue,
  ) {}

  @Process({ name: ChainWriterJob.flush, concurrency: 8 })
  async flush(job: Job<FlushJobData>): Promise<void> {
    const shards = job.data.shard === undefined ? [...Array(this.writer.shardCount).keys()] : [job.data.shard];
    // A failure (chain down, say) rethrows so Bull retries with backoff; the actions wait in the ledger meanwhile.
    await Promise.all(shards.map((shard) => this.writer.flush(shard)));
  }

  /**
   * Takes no more flush jobs here and waits for the running ones to finish their broadcasts before
   * the chain's provider is destroyed: ChainClient's hook runs after this one (its module is imported
   * by this one's), whereas the queue's own close, which waits for them too, runs after both (its
   * module is global, and global modules stop last).
   */
  async onApplicationShutdown(): Promise<void> {
    await this.queue.stopProcessingHere();
  }
}
