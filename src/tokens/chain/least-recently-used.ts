/**
 * A map of at most `capacity` entries that forgets the least recently used one first: reading an entry
 * (get) or writing it (set) makes it the most recent. A Map keeps its keys in insertion order, so
 * moving an entry to the end is a delete and a set, and the first key is the least recently used.
 * Written here rather than taken from lru-cache: that package is installed only as a dependency of
 * development tools, so a production install (`npm ci --omit=dev`) does not have it, and these
 * few lines are all the metadata cache needs of it.
 */
export class LeastRecentlyUsed<K, V> {
  private readonly entries = new Map<K, V>();

  constructor(private readonly capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1) throw new RangeError(`capacity must be a positive integer, got ${capacity}`);
  }

  get size(): number {
    return this.entries.size;
  }

  has(key: K): boolean {
    return this.entries.has(key);
  }

  /** The entry's value, made the most recent; undefined when there is none. */
  get(key: K): V | undefined {
    if (!this.entries.has(key)) return undefined;
    const value = this.entries.get(key) as V;
    this.entries.delete(key);
    this.entries.set(key, value);
    return value;
  }

  /** Keeps the value as the most recent entry, forgetting the least recent one when past the capacity. */
  set(key: K, value: V): void {
    this.entries.delete(key);
    this.entries.set(key, value);
    if (this.entries.size > this.capacity) this.entries.delete(this.entries.keys().next().value as K);
  }

  delete(key: K): void {
    this.entries.delete(key);
  }

  /** The keys, least recently used first. */
  keys(): K[] {
    return [...this.entries.keys()];
  }
}
