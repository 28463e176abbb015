import { Injectable } from "@nestjs/common";
import { InjectMetric } from "@willsoto/nestjs-prometheus";
import type { Counter, Histogram } from "prom-client";

import { METRICS } from "../../metrics/metric-definitions";

export interface CallbackAttemptRecord {
  /** The receiver's HTTP status; null when it did not answer. */
  statusCode: number | null;
  durationMs: number;
  /** What the attempt made of the callback. */
  result: "delivered" | "failed" | "pending";
  /** When the callback was written to the outbox. */
  createdAt: Date;
}

/** The callback dispatcher's metrics: attempts, their duration, give-ups, end-to-end delivery time and receivers disabled. */
@Injectable()
export class DeliveryMetrics {
  constructor(
    @InjectMetric(METRICS.callbackAttempts.name) private readonly attempts: Counter<string>,
    @InjectMetric(METRICS.callbackAttemptDuration.name) private readonly duration: Histogram<string>,
    @InjectMetric(METRICS.callbacksFailed.name) private readonly failed: Counter<string>,
    @InjectMetric(METRICS.callbackDelivery.name) private readonly delivery: Histogram<string>,
    @InjectMetric(METRICS.callbackReceiversDisabled.name) private readonly receiversDisabled: Counter<string>,
  ) {}

  /** A receiver disabled for failing: a webhook endpoint, or an event's callbackUrl. */
  receiverDisabled(receiver: "webhook" | "callback_url"): void {
    this.receiversDisabled.inc({ receiver });
  }

  attempted(attempt: CallbackAttemptRecord, now = Date.now()): void {
    const outcome = attemptOutcome(attempt.statusCode);
    this.attempts.inc({ outcome });
    this.duration.observe({ outcome }, attempt.durationMs / 1000);
    if (attempt.result === "failed") this.failed.inc({ reason: attempt.statusCode === 410 ? "gone" : "exhausted" });
    if (attempt.result === "delivered") this.delivery.observe(Math.max(0, now - attempt.createdAt.getTime()) / 1000);
  }
}

function attemptOutcome(statusCode: number | null): string {
  if (statusCode === null) return "no_answer";
  return statusCode >= 200 && statusCode < 300 ? "success" : "http_error";
}
