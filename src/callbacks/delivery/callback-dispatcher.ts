import { type BeforeApplicationShutdown, Injectable, Logger, type OnApplicationBootstrap } from "@nestjs/common";

import { type Clock, InjectClock } from "../../common/clock";
import type { AppConfig } from "../../config/app-config";
import { InjectConfig } from "../../config/config.module";
import { ReceiverHealth } from "../webhooks/receiver-health";
import { ReceiverHealthStore } from "../webhooks/receiver-health.store";
import { type ClaimedCallback, CallbackOutboxStore } from "../callback-outbox.store";
import { WebhookSecretsService } from "../secrets/webhook-secrets.service";
import { AttemptRecorder } from "./attempt-recorder";
import { CallbackDelivery } from "./callback-delivery";
import { DeliveryMetrics } from "./delivery-metrics";
import { receiverOf } from "../../ledger/callback-receiver";
import { ReceiverSlots } from "./receiver-slots";

/**
 * Delivers the outbox. Callbacks are claimed with a lease (CallbackOutboxStore), so any number of
 * workers share the work and a killed worker's callbacks return after the lease. Up to
 * CALLBACK_CONCURRENCY are in flight, and at most half of them to one receiver (ReceiverSlots), so
 * a slow receiver, however many callbacks it has, leaves the other half to the rest. A callback
 * waits until every earlier action of its ticket (or event) is final and its callback has had a
 * first attempt.
 */
@Injectable()
export class CallbackDispatcher implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(CallbackDispatcher.name);
  private readonly inFlight = new Set<Promise<void>>();
  private readonly slots: ReceiverSlots;
  private readonly results: AttemptRecorder;
  private stopped = false;
  private claiming = false;
  /** The claim loop, while it runs. */
  private loop: Promise<void> | undefined;
  /** Wakes the loop early: when it sleeps between polls, or waits for room. */
  private wake: (() => void) | undefined;
  private waitingForRoom = false;
  /** The loop claims when at least this many slots are free, so one claim carries many callbacks. */
  private readonly claimBatch: number;

  constructor(
    private readonly outbox: CallbackOutboxStore,
    private readonly secrets: WebhookSecretsService,
    private readonly delivery: CallbackDelivery,
    @InjectConfig() private readonly config: AppConfig,
    metrics: DeliveryMetrics,
    health: ReceiverHealthStore,
    @InjectClock() clock: Clock,
  ) {
    this.claimBatch = Math.max(1, Math.floor(config.callbacks.concurrency / 10));
    this.slots = new ReceiverSlots(config.callbacks.concurrency, this.claimBatch);
    const receivers = new ReceiverHealth(health, clock, config.callbacks, (receiver) => metrics.receiverDisabled(receiver), this.logger);
    this.results = new AttemptRecorder(outbox, metrics, config.callbacks, receivers, this.logger, () => {
      if (!this.waitingForRoom) this.wake?.();
    });
  }

  onApplicationBootstrap(): void {
    if (this.config.callbacks.deliver) this.loop = this.run();
  }

  /** Stops claiming, lets the deliveries in flight finish and records them before the database closes. */
  async beforeApplicationShutdown(): Promise<void> {
    this.stopped = true;
    this.wake?.();
    await this.loop;
    await this.outbox.closeClaims();
    await Promise.allSettled([...this.inFlight]);
    await this.results.flush();
  }

  /**
   * Claims and starts as many due callbacks as there is room for. `again`: a receiver this claim
   * served still has a claim batch of room (deliveries finished while the claim ran, or it had more
   * room than due callbacks), so claiming at once is worth it.
   */
  async dispatch(): Promise<{ started: number; again: boolean }> {
    if (this.claiming) return { started: 0, again: false };
    this.claiming = true;
    try {
      const room = this.freeSlots();
      if (room <= 0) return { started: 0, again: false };
      const claimed = await this.outbox.claimDue(room, this.config.callbacks.leaseMs, this.slots.shares());
      if (claimed.length === 0) return { started: 0, again: false };
      const secrets = await this.secrets.activeSecrets([...new Set(claimed.map((callback) => callback.organizationId))]);
      const served = new Set<string>();
      for (const callback of claimed) {
        const receiver = receiverOf(callback.callbackUrl);
        served.add(receiver);
        this.track(receiver, this.deliver(callback, secrets.get(callback.organizationId) ?? []));
      }
      const again = this.freeSlots() >= this.claimBatch && [...served].some((receiver) => this.slots.hasClaimRoom(receiver));
      return { started: claimed.length, again };
    } finally {
      this.claiming = false;
    }
  }

  private freeSlots(): number {
    return this.config.callbacks.concurrency - this.inFlight.size;
  }

  /**
   * Claims whenever a batch of slots is free (woken as deliveries finish, not by a timer, so a fast
   * receiver keeps every slot busy), and polls every CALLBACK_POLL_MS when nothing more is due. A
   * claim takes milliseconds, in which a fast receiver answers hundreds of callbacks: when the claim
   * leaves a receiver it served with room, the next one starts at once rather than after a poll or
   * a recorded batch, or that receiver's slots run dry.
   */
  private async run(): Promise<void> {
    while (!this.stopped) {
      let again = false;
      try {
        again = (await this.dispatch()).again;
      } catch (error) {
        this.logger.warn(`callback dispatch failed, retrying: ${(error as Error).message}`);
      }
      if (this.stopped) return;
      this.slots.rememberLeftOut();
      if (this.freeSlots() < this.claimBatch) await this.pause(null);
      else if (!again) await this.pause(this.config.callbacks.pollMs);
    }
  }

  /**
   * Waits `ms` (or until recorded results may have made callbacks due: a ticket's next callback
   * waits for the previous one's first attempt), or with null until a batch of slots is free.
   * Stopping wakes it.
   */
  private pause(ms: number | null): Promise<void> {
    return new Promise((resolve) => {
      const timer = ms === null ? undefined : setTimeout(() => done(), ms);
      const done = () => {
        clearTimeout(timer);
        this.wake = undefined;
        this.waitingForRoom = false;
        resolve();
      };
      this.waitingForRoom = ms === null;
      this.wake = done;
    });
  }

  private async deliver(callback: ClaimedCallback, secrets: string[]): Promise<void> {
    this.results.add(await this.delivery.attempt(callback, secrets));
  }

  private track(receiver: string, delivery: Promise<void>): void {
    this.inFlight.add(delivery);
    this.slots.take(receiver);
    void delivery.finally(() => {
      this.inFlight.delete(delivery);
      const receiverAgain = this.slots.release(receiver);
      const roomAgain = this.waitingForRoom && this.freeSlots() >= this.claimBatch;
      // A receiver the last claim left out has room again: claim now rather than at the next poll.
      if (roomAgain || (!this.waitingForRoom && receiverAgain)) this.wake?.();
    });
  }
}
