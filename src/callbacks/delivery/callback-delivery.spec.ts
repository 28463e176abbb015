import { afterEach, describe, expect, it, vi } from "vitest";

import type { AppConfig } from "../../config/app-config";
import type { ClaimedCallback } from "../callback-outbox.store";
import { attemptOutcome, CallbackDelivery, type FinishedAttempt, leaseMarginMs } from "./callback-delivery";
import { CallbackHttp, type DeliveryAnswer } from "./callback-http";
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

describe("CallbackDelivery's start-by time", () => {
  afterEach(() => vi.restoreAllMocks());

  it("must have its connection by the lease's end less the timeout and a margin, so the attempt ends within its lease", async () => {
    const post = vi.spyOn(CallbackHttp.prototype, "post").mockResolvedValue({ statusCode: 204, error: null, durationMs: 1, retryAfter: undefined });
    const config = { callbacks: { timeoutMs: 15_000, leaseMs: 60_000, allowHosts: [], dnsServers: [], dnsTimeoutMs: 5_000 } } as unknown as AppConfig;
    const delivery = new CallbackDelivery(config);
    const leaseEndsAt = Date.now() + 60_000;
    const callback = { id: "c", payload: {}, callbackUrl: "https://hooks.example.com/x", leaseEndsAt } as ClaimedCallback;
    await delivery.attempt(callback, [`whsec_${Buffer.alloc(32, 1).toString("base64")}`]);
    expect(post.mock.calls[0][3]).toBe(leaseEndsAt - 15_000 - 4_500);
    delivery.onApplicationShutdown();
  });

  it("keeps a tenth of what the lease leaves beyond the timeout, at most 5 s", () => {
    expect(leaseMarginMs(60_000, 15_000)).toBe(4_500);
    expect(leaseMarginMs(120_000, 15_000)).toBe(5_000);
    expect(leaseMarginMs(2_000, 1_000)).toBe(100);
  });
});
