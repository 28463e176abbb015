import type { Logger } from "@nestjs/common";

import type { AnswerRead } from "./callback-http";

/** One finished delivery attempt, as its log line tells it. */
export interface DeliveryLogEntry {
  callbackId: string;
  /** Null for a notice, which no action brought. */
  actionId: string | null;
  /** The request that brought the action (x-request-id), so a request leads to its callbacks. */
  requestId: string | null;
  /** 1 for the first attempt. */
  attempt: number;
  url: string;
  statusCode: number | null;
  error: string | null;
  durationMs: number;
  /** How much of the receiver's answer body was read (never more than 64 KiB), and whether the rest was cut off. */
  answerRead?: AnswerRead;
  status: "delivered" | "failed" | "pending";
  nextAttemptAt: Date | null;
}

/**
 * A delivered callback is a debug line (a flood of them is the normal case); a failed attempt is a
 * warning, whether it will be retried or has run out of attempts.
 */
export function logDelivery(logger: Logger, entry: DeliveryLogEntry): void {
  const fields = {
    callbackId: entry.callbackId,
    actionId: entry.actionId,
    requestId: entry.requestId,
    attempt: entry.attempt,
    // Scheme, host and port only: a callbackUrl's path or query may carry the receiver's own token.
    receiver: originOf(entry.url),
    statusCode: entry.statusCode,
    durationMs: entry.durationMs,
    // The body itself is never logged (it is the receiver's): only how much of it was read.
    answerBytes: entry.answerRead?.bytes,
    answerCut: entry.answerRead?.cut,
    outcome: entry.status,
  };
  const answer = entry.statusCode === null ? (entry.error ?? "no answer") : `HTTP ${entry.statusCode}`;
  if (entry.status === "delivered") {
    logger.debug(fields, `callback ${entry.callbackId} delivered (attempt ${entry.attempt})`);
  } else if (entry.status === "pending") {
    logger.warn(
      { ...fields, error: entry.error, nextAttemptAt: entry.nextAttemptAt?.toISOString() },
      `callback ${entry.callbackId} attempt ${entry.attempt} failed (${answer}): retried later`,
    );
  } else {
    logger.warn({ ...fields, error: entry.error }, `callback ${entry.callbackId} failed for good after attempt ${entry.attempt} (${answer})`);
  }
}

function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return "(not a URL)";
  }
}
