import type { Logger } from "@nestjs/common";

import type { Clock } from "../../common/clock";
import type { JudgedAttempt } from "../delivery/callback-delivery";
import { callbackExhaustedNotice, type DisabledReceiver, type Notice } from "./notices";
import type { HealthReport, ReceiverHealthStore } from "./receiver-health.store";

export interface HealthPolicy {
  /** WEBHOOK_DISABLE_AFTER_HOURS. */
  disableAfterHours: number;
  /** CALLBACK_MAX_ATTEMPTS: a callback failed at its last attempt used them up. */
  maxAttempts: number;
}

/**
 * Follows each receiver's attempts, batch by batch after the attempts are recorded: a receiver that
 * has failed every attempt for WEBHOOK_DISABLE_AFTER_HOURS (by the injected clock) is disabled,
 * with a notice to the organization's other endpoints, a warning and a metric; a callback that used
 * up its attempts sends callback_exhausted to them.
 */
export class ReceiverHealth {
  constructor(
    private readonly store: Pick<ReceiverHealthStore, "apply">,
    private readonly clock: Clock,
    private readonly policy: HealthPolicy,
    private readonly disabledMetric: (receiver: "webhook" | "callback_url") => void,
    private readonly logger: Logger,
  ) {}

  async record(batch: readonly JudgedAttempt[]): Promise<void> {
    if (batch.length === 0) return;
    const now = this.clock.now();
    const disabled = await this.store.apply(healthReportOf(batch, now, this.policy.disableAfterHours), exhaustedNotices(batch, this.policy.maxAttempts, now));
    for (const receiver of disabled) {
      this.disabledMetric(receiver.webhookId === null ? "callback_url" : "webhook");
      logDisabled(this.logger, receiver);
    }
  }
}

/** What a batch says of its receivers: delivered to at least once, or failed at every attempt. */
export function healthReportOf(batch: readonly JudgedAttempt[], now: Date, disableAfterHours: number): HealthReport {
  const delivered = new Set<string>();
  const failed = new Set<string>();
  for (const { callback, status } of batch) (status === "delivered" ? delivered : failed).add(receiverKey(callback));
  for (const key of delivered) failed.delete(key);
  return {
    now,
    cutoff: new Date(now.getTime() - disableAfterHours * 3_600_000),
    delivered: refsOf(delivered),
    failed: refsOf(failed),
    pending: batch.filter((attempt) => attempt.status === "pending").map((attempt) => attempt.callback.id),
  };
}

/**
 * A callback_exhausted notice per callback of the batch that failed at its last allowed attempt (a
 * 410 gave up at once, with attempts left: not exhausted). Notices themselves send none: a receiver
 * failing notices would otherwise notify the others of it without end.
 */
export function exhaustedNotices(batch: readonly JudgedAttempt[], maxAttempts: number, now: Date): Notice[] {
  return batch
    .filter(
      ({ callback, answer, status }) => status === "failed" && answer.statusCode !== 410 && callback.attempts + 1 >= maxAttempts && callback.actionId !== null,
    )
    .map(({ callback, answer }) => callbackExhaustedNotice(callback, answer, now));
}

/** `w:<webhook>` or `e:<event>`: a callback's receiver, its endpoint or its event's callbackUrl. */
function receiverKey(callback: JudgedAttempt["callback"]): string {
  return callback.webhookId !== null ? `w:${callback.webhookId}` : `e:${callback.eventRef}`;
}

function refsOf(keys: ReadonlySet<string>): HealthReport["delivered"] {
  const webhooks: string[] = [];
  const events: string[] = [];
  for (const key of keys) (key.startsWith("w:") ? webhooks : events).push(key.slice(2));
  return { webhooks, events };
}

function logDisabled(logger: Logger, receiver: DisabledReceiver): void {
  const what = receiver.webhookId === null ? `the callbackUrl of event ${receiver.eventId}` : `webhook endpoint ${receiver.webhookId}`;
  logger.warn(
    {
      organizationId: receiver.organizationId,
      webhookId: receiver.webhookId,
      eventId: receiver.eventId,
      receiver: originOf(receiver.url),
      failingSince: receiver.failingSince.toISOString(),
    },
    `${what} disabled: every attempt failed since ${receiver.failingSince.toISOString()}; its callbacks are kept, not attempted, until it is enabled again`,
  );
}

function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return "(not a URL)";
  }
}
