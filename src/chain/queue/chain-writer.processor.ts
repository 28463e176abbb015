import { Process, Processor } from "@nestjs/bull";
import type { Job } from "bull";

import { ChainWriter } from "../writer/sending/chain-writer";
import { CHAIN_WRITER_QUEUE, ChainWriterJob, type FlushJobData } from "./chain-writer.queue";

/** Thin: a flush job names a signer (or all); the writer reads the work from the ledger. */
@Processor(CHAIN_WRITER_QUEUE)
export class ChainWriterProcessor {
  constructor(private readonly writer: ChainWriter) {}

  @Process({ name: ChainWriterJob.flush, concurrency: 8 })
  async flush(job: Job<FlushJobData>): Promise<void> {
    const shards = job.data.shard === undefined ? [...Array(this.writer.shardCount).keys()] : [job.data.shard];
    // A failure (chain down, say) rethrows so Bull retries with backoff; the actions wait in the ledger meanwhile.
    await Promise.all(shards.map((shard) => this.writer.flush(shard)));
  }
}
