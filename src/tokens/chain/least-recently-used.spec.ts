import { describe, expect, it } from "vitest";

import { LeastRecentlyUsed } from "./least-recently-used";

describe("LeastRecentlyUsed", () => {
  it("forgets the least recently written entry past its capacity", () => {
    const sut = new LeastRecentlyUsed<string, number>(2);
    sut.set("a", 1);
    sut.set("b", 2);
    sut.set("c", 3);
    expect(sut.keys()).toEqual(["b", "c"]);
    expect(sut.get("a")).toBeUndefined();
  });

  it("makes an entry read the most recent, so the entry forgotten next is another", () => {
    const sut = new LeastRecentlyUsed<string, number>(2);
    sut.set("a", 1);
    sut.set("b", 2);
    expect(sut.get("a")).toBe(1);
    sut.set("c", 3);
    expect(sut.keys()).toEqual(["a", "c"]);
    expect(sut.has("b")).toBe(false);
  });

  it("makes an entry written again the most recent, with its new value, without growing", () => {
    const sut = new LeastRecentlyUsed<string, number>(2);
    sut.set("a", 1);
    sut.set("b", 2);
    sut.set("a", 10);
    sut.set("c", 3);
    expect(sut.keys()).toEqual(["a", "c"]);
    expect(sut.get("a")).toBe(10);
    expect(sut.size).toBe(2);
  });

  it("keeps a value that is undefined apart from no entry, and deletes", () => {
    const sut = new LeastRecentlyUsed<string, number | undefined>(3);
    sut.set("u", undefined);
    expect(sut.has("u")).toBe(true);
    sut.delete("u");
    expect(sut.has("u")).toBe(false);
  });

  it("refuses a capacity that is not a positive integer", () => {
    expect(() => new LeastRecentlyUsed(0)).toThrow(RangeError);
    expect(() => new LeastRecentlyUsed(1.5)).toThrow(RangeError);
  });
});
