import { describe, expect, it } from "vitest";

import { MAX_RETRY_AFTER_MS, RETRY_DELAYS_SECONDS, retryAfterMs, retryDelayMs } from "./retry-schedule";

describe("the retry schedule", () => {
  it("spreads twelve attempts over about 24 hours", () => {
    const total = RETRY_DELAYS_SECONDS.reduce((sum, seconds) => sum + seconds, 0);
    expect(RETRY_DELAYS_SECONDS).toHaveLength(11);
    expect(total / 3600).toBeGreaterThan(23);
    expect(total / 3600).toBeLessThan(25);
  });

  it("jitters each delay by ±20% and keeps the last delay after the schedule runs out", () => {
    expect(retryDelayMs(1, () => 0)).toBe(8_000);
    expect(retryDelayMs(1, () => 0.5)).toBe(10_000);
    expect(retryDelayMs(1, () => 1)).toBe(12_000);
    expect(retryDelayMs(3, () => 0.5)).toBe(120_000);
    expect(retryDelayMs(40, () => 0.5)).toBe(28_800_000);
  });

  it("scales for tests (CALLBACK_RETRY_SCALE)", () => {
    expect(retryDelayMs(1, () => 0.5, 0.01)).toBe(100);
    expect(retryDelayMs(2, () => 0.5, 0.01)).toBe(300);
  });

  it("reads Retry-After as delta-seconds or an HTTP date, capped at the longest delay", () => {
    const now = Date.parse("2026-01-01T00:00:00Z");
    expect(retryAfterMs("120", now)).toBe(120_000);
    expect(retryAfterMs(" 3 ", now)).toBe(3_000);
    expect(retryAfterMs("Thu, 01 Jan 2026 00:00:30 GMT", now)).toBe(30_000);
    expect(retryAfterMs("Wed, 31 Dec 2025 00:00:00 GMT", now)).toBe(0);
    expect(retryAfterMs("999999999", now)).toBe(MAX_RETRY_AFTER_MS);
    expect(retryAfterMs("Fri, 01 Jan 2100 00:00:00 GMT", now)).toBe(MAX_RETRY_AFTER_MS);
    expect(retryAfterMs(undefined, now)).toBeNull();
    expect(retryAfterMs("soon", now)).toBeNull();
  });
});
