import Bull from "bull";
import type { DataSource } from "typeorm";

import type { AppConfig } from "../../../config/app-config";
import { ChainClient } from "../../chain-client";
import { CHAIN_WRITER_QUEUE, ChainWriterQueue, type FlushJobData } from "../../queue/chain-writer.queue";
import { BroadcastStore } from "../broadcast/broadcast.store";
import { SignerLocks } from "../signer-locks";
import { ReconcileStore } from "./reconcile.store";
import { SignerReconciler } from "./signer-reconciler";
import { SignerStopsStore } from "./signer-stops.store";

export interface StandaloneSignerReconciler {
  reconciler: SignerReconciler;
  /** Closes the chain connection and the queue it asks flushes on. */
  close(): Promise<void>;
}

/**
 * A SignerReconciler outside Nest's container, composed as ChainWriterModule composes it, for the ops
 * CLI: over the CLI's DataSource, its own chain connection and the writer's queue (for the flush that
 * resumes the signer; the running workers take it).
 */
export function openSignerReconciler(dataSource: DataSource, config: AppConfig): StandaloneSignerReconciler {
  const chain = new ChainClient(config);
  const queue = new Bull<FlushJobData>(CHAIN_WRITER_QUEUE, config.redis.url, { prefix: `${config.redis.keyPrefix}:bull` });
  const reconciler = new SignerReconciler(
    chain,
    new BroadcastStore(dataSource),
    new ReconcileStore(dataSource),
    new SignerStopsStore(dataSource),
    new SignerLocks(dataSource),
    new ChainWriterQueue(queue),
  );
  return {
    reconciler,
    close: async () => {
      chain.onApplicationShutdown();
      await queue.close();
    },
  };
}
