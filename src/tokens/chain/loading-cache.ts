/**
 * A bounded in-memory cache whose misses load once however many ask at the same time. An entry
 * invalidated while its load is in flight is served to those waiting but not kept: it may predate the
 * change. The oldest entries go first when the cache is full (Map keeps insertion order).
 */
export class LoadingCache<K, V> {
  private readonly entries = new Map<K, V>();
  private readonly loading = new Map<K, { promise: Promise<V>; stale: boolean }>();

  constructor(private readonly maxEntries: number) {}

  get size(): number {
    return this.entries.size;
  }

  /** The cached value, or the one `load` gives (shared with every concurrent caller of the same key). */
  get(key: K, load: () => Promise<V>): Promise<V> {
    if (this.entries.has(key)) return Promise.resolve(this.entries.get(key) as V);
    const pending = this.loading.get(key);
    if (pending) return pending.promise;
    const entry = { promise: load(), stale: false };
    this.loading.set(key, entry);
    entry.promise.then(
      (value) => {
        this.loading.delete(key);
        if (!entry.stale) this.keep(key, value);
      },
      () => this.loading.delete(key),
    );
    return entry.promise;
  }

  /** Forgets the entries whose key `matches`, and keeps none of the loads of such keys in flight. */
  invalidate(matches: (key: K) => boolean): void {
    for (const key of [...this.entries.keys()]) if (matches(key)) this.entries.delete(key);
    for (const [key, entry] of this.loading) if (matches(key)) entry.stale = true;
  }

  clear(): void {
    this.invalidate(() => true);
  }

  private keep(key: K, value: V): void {
    this.entries.set(key, value);
    if (this.entries.size > this.maxEntries) this.entries.delete(this.entries.keys().next().value as K);
  }
}
