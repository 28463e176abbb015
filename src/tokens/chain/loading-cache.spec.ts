import { describe, expect, it } from "vitest";

import { LoadingCache } from "./loading-cache";

/** A load the test finishes when it wants. */
function deferred<T>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((done) => (resolve = done));
  return { promise, resolve };
}

describe("LoadingCache", () => {
  it("loads a key once for every caller at the same time, and keeps it", async () => {
    const sut = new LoadingCache<string, number>(10);
    let loads = 0;
    const load = async () => ++loads;
    const [a, b] = await Promise.all([sut.get("k", load, sut.generation), sut.get("k", load, sut.generation)]);
    expect([a, b, await sut.get("k", load, sut.generation), loads]).toEqual([1, 1, 1, 1]);
  });

  it("serves but never keeps a value read before an invalidation, even one that started after it", async () => {
    const sut = new LoadingCache<string, string>(10);
    const readAt = sut.generation;
    sut.invalidate((key) => key === "other");
    expect(await sut.get("k", async () => "old", readAt)).toBe("old");
    expect(await sut.get("k", async () => "new", sut.generation)).toBe("new");
    expect(await sut.get("k", async () => "newer", sut.generation)).toBe("new");
  });

  it("lets no later caller join a load of a key invalidated while it was in flight", async () => {
    const sut = new LoadingCache<string, string>(10);
    const slow = deferred<string>();
    const first = sut.get("k", () => slow.promise, sut.generation);
    sut.invalidate((key) => key === "k");
    const second = sut.get("k", async () => "after", sut.generation);
    slow.resolve("before");
    expect([await first, await second]).toEqual(["before", "after"]);
    expect(await sut.get("k", async () => "again", sut.generation)).toBe("after");
  });

  it("forgets a failed load and its oldest entries past its size", async () => {
    const sut = new LoadingCache<number, number>(2);
    await expect(sut.get(1, () => Promise.reject(new Error("node away")), sut.generation)).rejects.toThrow("node away");
    for (const key of [1, 2, 3]) await sut.get(key, async () => key * 10, sut.generation);
    expect(sut.size).toBe(2);
    expect(await sut.get(1, async () => -1, sut.generation)).toBe(-1);
  });
});
