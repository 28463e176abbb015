/** How old a count may get before a claim counts again: keys other instances added, and keys that expired, show by then. */
export const RECOUNT_AFTER_MS = 10_000;
/** How old a count that says "full" may get: a key that expires frees its room within a second. */
export const FULL_RECOUNT_AFTER_MS = 1_000;

interface Count {
  keys: number;
  countedAt: number;
}

/**
 * Whether an organization holds its most Idempotency-Keys (IDEMPOTENCY_MAX_KEYS_PER_ORGANIZATION), known
 * without counting its keys on every request: counting 100,000 live keys takes about 20 ms of PostgreSQL,
 * too much for each keyed POST. Each instance counts an organization's keys at most every 10 s (every
 * second while it is full), shared by the requests that ask meanwhile, and adds the keys it claims
 * itself in between. So the limit may be passed by the keys other instances claimed within those
 * seconds: it bounds a flood, it is not an exact quota.
 */
export class OrganizationKeyCounts {
  private readonly counts = new Map<string, Count>();
  private readonly counting = new Map<string, Promise<Count>>();

  constructor(
    private readonly maxKeys: number,
    /** The organization's live keys, counted up to maxKeys. */
    private readonly countKeys: (organizationId: string) => Promise<number>,
    private readonly now: () => number = Date.now,
  ) {}

  async isFull(organizationId: string): Promise<boolean> {
    let count = this.counts.get(organizationId);
    const age = count === undefined ? Infinity : this.now() - count.countedAt;
    if (count === undefined || age >= RECOUNT_AFTER_MS || (count.keys >= this.maxKeys && age >= FULL_RECOUNT_AFTER_MS)) {
      count = await this.recount(organizationId);
    }
    return count.keys >= this.maxKeys;
  }

  /** A key this instance has just claimed anew. */
  added(organizationId: string): void {
    const count = this.counts.get(organizationId);
    if (count) count.keys += 1;
  }

  private recount(organizationId: string): Promise<Count> {
    let pending = this.counting.get(organizationId);
    if (!pending) {
      const countedAt = this.now();
      pending = this.countKeys(organizationId)
        .then((keys) => {
          const count = { keys, countedAt };
          this.counts.set(organizationId, count);
          return count;
        })
        .finally(() => this.counting.delete(organizationId));
      this.counting.set(organizationId, pending);
    }
    return pending;
  }
}
