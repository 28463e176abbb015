import type { Counter } from "prom-client";

/** The kind label of an item whose action could not be read (not an object, an unknown stream action). */
export const UNKNOWN_KIND = "unknown";

interface Item {
  /** The stream action or the endpoint the item was sent as ("soldTicket", "sold", "events"); empty when unknown. */
  requestedAs: string;
}

interface Outcome {
  error?: { code: string };
}

/**
 * Counts a request's items by kind and outcome, then adds each count once: a 5000-action stream
 * costs a handful of counter updates, not 5000.
 */
export function countActionOutcomes(counter: Counter<string>, items: readonly Item[], outcomes: readonly Outcome[]): void {
  const counts = new Map<string, { labels: Record<string, string>; count: number }>();
  outcomes.forEach((outcome, position) => {
    const kind = items[position]?.requestedAs || UNKNOWN_KIND;
    const labels: Record<string, string> = outcome.error ? { kind, outcome: "refused", code: outcome.error.code } : { kind, outcome: "accepted" };
    const key = `${kind}\u0000${labels.code ?? ""}`;
    const entry = counts.get(key);
    if (entry) entry.count += 1;
    else counts.set(key, { labels, count: 1 });
  });
  for (const { labels, count } of counts.values()) counter.inc(labels, count);
}
