import { LeastRecentlyUsed } from "./least-recently-used";

/** How many values a LoadingCache keeps: `entries` found values and, apart, `misses` (what `isMiss` calls one: nothing found). */
export interface LoadingCacheLimits<V> {
  entries: number;
  misses: number;
  isMiss: (value: V) => boolean;
}

/**
 * A bounded in-memory cache whose misses load once however many ask at the same time, and which keeps a
 * loaded value only if nothing was invalidated since its caller took the generation it read at: a value
 * read at a block from before a change is served to its callers but never kept. A load of a key that is
 * invalidated while in flight is left to its callers; later callers load anew. Values are kept least
 * recently used first out, a read refreshing its entry; a value that found nothing (a miss) is kept in a
 * budget of its own, so that asking for things that do not exist only ever pushes out other misses, never
 * a real value. Written here rather than taken from lru-cache, whose fetch() drops a load only when its
 * own key changes: the rule needed is global (any change after the head was read), since a window's load
 * may start after the change that concerns it was seen.
 */
export class LoadingCache<K, V> {
  private readonly found: LeastRecentlyUsed<K, V>;
  private readonly missed: LeastRecentlyUsed<K, V>;
  private readonly isMiss: (value: V) => boolean;
  private readonly loading = new Map<K, Promise<V>>();
  private invalidations = 0;

  constructor(limits: LoadingCacheLimits<V>) {
    this.found = new LeastRecentlyUsed(limits.entries);
    this.missed = new LeastRecentlyUsed(limits.misses);
    this.isMiss = limits.isMiss;
  }

  /** Values kept: found ones and misses. */
  get size(): { entries: number; misses: number } {
    return { entries: this.found.size, misses: this.missed.size };
  }

  /** The count of invalidations so far: take it when choosing what to read at (a block), and hand it to get. */
  get generation(): number {
    return this.invalidations;
  }

  /** The cached value, or the one `load` gives (shared with every concurrent caller of the same key), kept if no invalidation came after `generation`. */
  get(key: K, load: () => Promise<V>, generation: number): Promise<V> {
    if (this.found.has(key)) return Promise.resolve(this.found.get(key) as V);
    if (this.missed.has(key)) return Promise.resolve(this.missed.get(key) as V);
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
    for (const kept of [this.found, this.missed]) for (const key of kept.keys()) if (matches(key)) kept.delete(key);
    for (const key of [...this.loading.keys()]) if (matches(key)) this.loading.delete(key);
  }

  clear(): void {
    this.invalidate(() => true);
  }

  private keep(key: K, value: V): void {
    if (this.isMiss(value)) this.missed.set(key, value);
    else this.found.set(key, value);
  }
}
