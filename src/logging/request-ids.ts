/** How many request ids one log line lists: enough to follow a few requests, bounded for a batch of thousands. */
export const LOGGED_REQUEST_IDS = 20;

export interface RequestIdSummary {
  /** How many distinct requests the actions came from (actions accepted without one are not counted). */
  requestCount: number;
  /** The first of them, in the order given. */
  requestIds: string[];
}

/** The distinct request ids of a set of actions, for a line about all of them (a transaction, say). */
export function summarizeRequestIds(requestIds: Iterable<string | null | undefined>, limit = LOGGED_REQUEST_IDS): RequestIdSummary {
  const distinct = new Set<string>();
  for (const id of requestIds) if (id) distinct.add(id);
  return { requestCount: distinct.size, requestIds: [...distinct].slice(0, limit) };
}
