import { describe, expect, it } from "vitest";

import { LoadingCache } from "./loading-cache";

/** A load the test finishes when it wants. */
function deferred<T>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((done) => (resolve = done));
  return { promise, resolve };
}

/** Numbers, of which 0 is a miss (nothing found). */
const cache = <K>(entries = 10, misses = 10) => new LoadingCache<K, number>({ entries, misses, isMiss: (value) => value === 0 });

describe("LoadingCache", () => {
  it("loads a key once for every caller at the same time, and keeps it", async () => {
    const sut = cache<string>();
    let loads = 0;
    const load = async () => ++loads;
    const [a, b] = await Promise.all([sut.get("k", load, sut.generation), sut.get("k", load, sut.generation)]);
    expect([a, b, await sut.get("k", load, sut.generation), loads]).toEqual([1, 1, 1, 1]);
  });

  it("serves but never keeps a value read before an invalidation, even one that started after it", async () => {
    const sut = new LoadingCache<string, string>({ entries: 10, misses: 10, isMiss: () => false });
    const readAt = sut.generation;
    sut.invalidate((key) => key === "other");
    expect(await sut.get("k", async () => "old", readAt)).toBe("old");
    expect(await sut.get("k", async () => "new", sut.generation)).toBe("new");
    expect(await sut.get("k", async () => "newer", sut.generation)).toBe("new");
  });

  it("lets no later caller join a load of a key invalidated while it was in flight", async () => {
    const sut = new LoadingCache<string, string>({ entries: 10, misses: 10, isMiss: () => false });
    const slow = deferred<string>();
    const first = sut.get("k", () => slow.promise, sut.generation);
    sut.invalidate((key) => key === "k");
    const second = sut.get("k", async () => "after", sut.generation);
    slow.resolve("before");
    expect([await first, await second]).toEqual(["before", "after"]);
    expect(await sut.get("k", async () => "again", sut.generation)).toBe("after");
  });

  it("forgets a failed load and its least recently used entries past its size", async () => {
    const sut = cache<number>(2);
    await expect(sut.get(1, () => Promise.reject(new Error("node away")), sut.generation)).rejects.toThrow("node away");
    for (const key of [1, 2, 3]) await sut.get(key, async () => key * 10, sut.generation);
    expect(sut.size).toEqual({ entries: 2, misses: 0 });
    expect(await sut.get(1, async () => -1, sut.generation)).toBe(-1);
  });

  it("refreshes an entry that is read: the one forgotten is the least recently used, not the first kept", async () => {
    const sut = cache<number>(2);
    await sut.get(1, async () => 10, sut.generation);
    await sut.get(2, async () => 20, sut.generation);
    expect(await sut.get(1, async () => -1, sut.generation)).toBe(10);
    await sut.get(3, async () => 30, sut.generation);
    expect(await sut.get(1, async () => -1, sut.generation)).toBe(10);
    expect(await sut.get(2, async () => -2, sut.generation)).toBe(-2);
  });

  it("keeps misses in a budget of their own: a thousand misses push out no value found", async () => {
    const sut = cache<number>(3, 5);
    for (const key of [1, 2, 3]) await sut.get(key, async () => key, sut.generation);
    for (let key = 100; key < 1_100; key++) await sut.get(key, async () => 0, sut.generation);
    expect(sut.size).toEqual({ entries: 3, misses: 5 });
    for (const key of [1, 2, 3]) expect(await sut.get(key, async () => -1, sut.generation)).toBe(key);
    // The latest misses are kept (read again: no load), the older ones forgotten.
    expect(await sut.get(1_099, async () => -1, sut.generation)).toBe(0);
    expect(await sut.get(100, async () => -1, sut.generation)).toBe(-1);
  });

  it("invalidates found values and misses alike", async () => {
    const sut = cache<number>();
    await sut.get(1, async () => 1, sut.generation);
    await sut.get(2, async () => 0, sut.generation);
    sut.clear();
    expect(sut.size).toEqual({ entries: 0, misses: 0 });
  });
});
