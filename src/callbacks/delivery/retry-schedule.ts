/**
 * Seconds to wait after each failed attempt: twelve attempts over about 24 hours (10 s, 30 s,
 * 2 min, 5 min, 15 min, 30 min, 1 h, 2 h, 4 h, 8 h, 8 h), each delay jittered by ±20% so that a
 * receiver coming back is not hit by every retry at once.
 */
export const RETRY_DELAYS_SECONDS = [10, 30, 120, 300, 900, 1_800, 3_600, 7_200, 14_400, 28_800, 28_800];

export function retryDelayMs(failedAttempts: number, random: () => number = Math.random): number {
  const base = RETRY_DELAYS_SECONDS[Math.min(failedAttempts, RETRY_DELAYS_SECONDS.length) - 1] * 1000;
  return Math.round(base * (0.8 + 0.4 * random()));
}

/** A Retry-After header as milliseconds: delta-seconds or an HTTP date; null if absent or unreadable. */
export function retryAfterMs(header: string | undefined, now = Date.now()): number | null {
  if (!header) return null;
  if (/^\d+$/.test(header.trim())) return Number(header.trim()) * 1000;
  const date = Date.parse(header);
  return Number.isNaN(date) ? null : Math.max(0, date - now);
}
