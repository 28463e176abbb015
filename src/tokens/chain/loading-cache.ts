/**
 * A bounded in-memory cache whose misses load once however many ask at the same time, and which keeps a
 * loaded value only if nothing was invalidated since its caller took the generation it read at: a value
 * read at a block from before a change is served to its callers but never kept. A load of a key that is
 * invalidated while in flight is left to its callers; later callers load anew. The oldest entries go first
 * when the cache is full (Map keeps insertion order). Written here rather than taken from lru-cache, whose
 * fetch() drops a load only when its own key changes: the rule needed is global (any change after the
 * head was read), since a window's load may start after the change that concerns it was seen.
 */
export class LoadingCache<K, V> {
  private readonly entries = new Map<K, V>();
  private readonly loading = new Map<K, Promise<V>>();
  private invalidations = 0;

  constructor(private readonly maxEntries: number) {}

  get size(): number {
    return this.entries.size;
  }

  /** The count of invalidations so far: take it when choosing what to read at (a block), and hand it to get. */
  get generation(): number {
    return this.invalidations;
  }

  /** The cached value, or the one `load` gives (shared with every concurrent caller of the same key), kept if no invalidation came after `generation`. */
  get(key: K, load: () => Promise<V>, generation: number): Promise<V> {
    if (this.entries.has(key)) return Promise.resolve(this.entries.get(key) as V);
    const pending = this.loading.get(key);
    if (pending) return pending;
    const promise = load();
    this.loading.set(key, promise);
    promise.then(
      (value) => {
        if (this.loading.get(key) === promise) this.loading.delete(key);
        if (this.invalidations === generation) this.keep(key, value);
      },
      () => {
        if (this.loading.get(key) === promise) this.loading.delete(key);
      },
    );
    return promise;
  }

  /** Forgets the entries whose key `matches`; their loads in flight are joined by no later caller. */
  invalidate(matches: (key: K) => boolean): void {
    this.invalidations += 1;
    for (const key of [...this.entries.keys()]) if (matches(key)) this.entries.delete(key);
    for (const key of [...this.loading.keys()]) if (matches(key)) this.loading.delete(key);
  }

  clear(): void {
    this.invalidate(() => true);
  }

  private keep(key: K, value: V): void {
    this.entries.set(key, value);
    if (this.entries.size > this.maxEntries) this.entries.delete(this.entries.keys().next().value as K);
  }
}
