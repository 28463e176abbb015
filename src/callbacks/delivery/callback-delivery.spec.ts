import { describe, expect, it } from "vitest";

import type { ClaimedCallback } from "../callback-outbox.store";
import { attemptOutcome, type FinishedAttempt } from "./callback-delivery";
import type { DeliveryAnswer } from "./callback-http";
import { MAX_RETRY_AFTER_MS } from "./retry-schedule";

const NOW = Date.parse("2026-01-01T00:00:00Z");
const POLICY = { maxAttempts: 12, retryScale: 1 };
/** The middle of the jitter: the schedule's delay as written. */
const NO_JITTER = () => 0.5;

function finished(statusCode: number | null, attemptsBefore = 0, retryAfter?: string): FinishedAttempt {
  const callback = { id: "c", attempts: attemptsBefore } as ClaimedCallback;
  const answer: DeliveryAnswer = { statusCode, error: statusCode === null ? "no answer within 15000 ms" : null, durationMs: 12, retryAfter };
  return { callback, answer, startedAt: new Date(NOW) };
}

function outcome(attempt: FinishedAttempt, policy = POLICY) {
  return attemptOutcome(attempt, policy, NOW, NO_JITTER);
}

describe("attemptOutcome", () => {
  it("delivers on any 2xx", () => {
    expect(outcome(finished(200))).toEqual({ status: "delivered", nextAttemptAt: null });
    expect(outcome(finished(299, 11))).toEqual({ status: "delivered", nextAttemptAt: null });
  });

  it("stops at once on 410 Gone", () => {
    expect(outcome(finished(410))).toEqual({ status: "failed", nextAttemptAt: null });
  });

  it("retries anything else on the schedule, scaled, until the attempts run out", () => {
    expect(outcome(finished(500))).toEqual({ status: "pending", nextAttemptAt: new Date(NOW + 10_000) });
    expect(outcome(finished(null, 1))).toEqual({ status: "pending", nextAttemptAt: new Date(NOW + 30_000) });
    expect(outcome(finished(302, 2), { maxAttempts: 12, retryScale: 0.01 })).toEqual({ status: "pending", nextAttemptAt: new Date(NOW + 1_200) });
    expect(outcome(finished(500, 10))).toEqual({ status: "pending", nextAttemptAt: new Date(NOW + 28_800_000) });
    expect(outcome(finished(500, 11))).toEqual({ status: "failed", nextAttemptAt: null });
    expect(outcome(finished(500, 2), { maxAttempts: 3, retryScale: 1 })).toEqual({ status: "failed", nextAttemptAt: null });
  });

  it("honours a longer Retry-After on 429 and 503 only, capped at the schedule's longest delay", () => {
    expect(outcome(finished(429, 0, "120")).nextAttemptAt).toEqual(new Date(NOW + 120_000));
    expect(outcome(finished(503, 0, "1")).nextAttemptAt).toEqual(new Date(NOW + 10_000));
    expect(outcome(finished(500, 0, "120")).nextAttemptAt).toEqual(new Date(NOW + 10_000));
    expect(outcome(finished(503, 0, "999999999")).nextAttemptAt).toEqual(new Date(NOW + MAX_RETRY_AFTER_MS));
  });
});
