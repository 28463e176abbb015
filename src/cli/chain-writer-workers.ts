import Bull from "bull";

import { CHAIN_WRITER_QUEUE } from "../chain/queue/chain-writer.queue";
import type { AppConfig } from "../config/app-config";
import { RefusedError } from "./cli-errors";

/**
 * How many processes work the chain writer's queue now: Bull names the Redis connection of each
 * worker that registered a processor for the queue (CLIENT SETNAME), and `getWorkers()` lists those
 * connections (CLIENT LIST). Every process of the worker role (or of the default role, which runs
 * the worker too) registers one while it runs, and its connection closes when the process ends.
 * The PostgreSQL advisory locks of the writer and the watcher would not do: they are held only while
 * a flush or a watcher pass runs, so an idle worker holds none.
 */
export async function chainWriterWorkers(config: AppConfig): Promise<number> {
  const queue = new Bull(CHAIN_WRITER_QUEUE, config.redis.url, { prefix: `${config.redis.keyPrefix}:bull` });
  try {
    // undefined when the server refuses CLIENT LIST (a managed Redis may): then nobody can tell.
    const workers = (await queue.getWorkers()) as unknown[] | undefined;
    if (workers === undefined) throw new RefusedError("Redis refuses CLIENT LIST: cannot tell whether a worker runs");
    return workers.length;
  } finally {
    await queue.close();
  }
}
