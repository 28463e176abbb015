import { Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from "@nestjs/common";

import type { AppConfig } from "../../config/app-config";
import { InjectConfig } from "../../config/config.module";
import { ChainActionsStore } from "../../ledger/chain-actions.store";
import { ChainWriterQueue } from "./chain-writer.queue";

/**
 * Redis carries the work but is not trusted with it: actions left waiting (a flushed Redis, a
 * process killed between commit and enqueue) get a new flush job from this periodic sweep.
 */
@Injectable()
export class PendingActionsSweeper implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(PendingActionsSweeper.name);
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly actions: ChainActionsStore,
    private readonly chainWriter: ChainWriterQueue,
    @InjectConfig() private readonly config: AppConfig,
  ) {}

  onApplicationBootstrap(): void {
    if (this.config.app.role === "api") return;
    this.timer = setInterval(() => void this.sweepLogged(), this.config.queue.sweepIntervalMs);
    this.timer.unref();
  }

  onApplicationShutdown(): void {
    clearInterval(this.timer);
  }

  /** Queues a flush when waiting actions are older than the sweep age and none is queued; returns how many wait. */
  async sweep(): Promise<number> {
    const waiting = await this.actions.countWaitingOlderThan(this.config.queue.sweepMinAgeMs);
    if (waiting > 0 && !(await this.chainWriter.flushWaiting())) {
      await this.chainWriter.requestFlush("sweep");
      this.logger.log(`re-queued ${waiting} waiting actions`);
    }
    return waiting;
  }

  private async sweepLogged(): Promise<void> {
    try {
      await this.sweep();
    } catch (error) {
      this.logger.warn(`sweep failed, retrying next interval: ${(error as Error).message}`);
    }
  }
}
