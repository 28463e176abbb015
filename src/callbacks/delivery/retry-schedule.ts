/**
 * Seconds to wait after each failed attempt: twelve attempts over about 24 hours (10 s, 30 s,
 * 2 min, 5 min, 15 min, 30 min, 1 h, 2 h, 4 h, 8 h, 8 h), each delay jittered by ±20% so that a
 * receiver coming back is not hit by every retry at once.
 */
export const RETRY_DELAYS_SECONDS = [10, 30, 120, 300, 900, 1_800, 3_600, 7_200, 14_400, 28_800, 28_800];

/** `scale` shrinks the schedule for tests (CALLBACK_RETRY_SCALE); production runs it as written. */
export function retryDelayMs(failedAttempts: number, random: () => number = Math.random, scale = 1): number {
  const base = RETRY_DELAYS_SECONDS[Math.min(failedAttempts, RETRY_DELAYS_SECONDS.length) - 1] * 1000 * scale;
  return Math.round(base * (0.8 + 0.4 * random()));
}

/** The longest a receiver's Retry-After may hold a callback back: the schedule's longest delay. */
export const MAX_RETRY_AFTER_MS = Math.max(...RETRY_DELAYS_SECONDS) * 1000;

/**
 * A Retry-After header as milliseconds: delta-seconds or an HTTP date; null if absent or unreadable.
 * Capped at MAX_RETRY_AFTER_MS, so a receiver cannot park a callback beyond the retry window.
 */
export function retryAfterMs(header: string | undefined, now = Date.now()): number | null {
  if (!header) return null;
  const trimmed = header.trim();
  if (/^\d+$/.test(trimmed)) return Math.min(Number(trimmed) * 1000, MAX_RETRY_AFTER_MS);
  const date = Date.parse(trimmed);
  return Number.isNaN(date) ? null : Math.min(Math.max(0, date - now), MAX_RETRY_AFTER_MS);
}
