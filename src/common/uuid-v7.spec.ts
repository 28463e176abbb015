import { describe, expect, it } from "vitest";

import { uuidv7, uuidv7Generator } from "./uuid-v7";

const msOf = (id: string) => parseInt(id.replace(/-/g, "").slice(0, 12), 16);

describe("uuidv7", () => {
  it("is a version 7, variant 1 UUID", () => {
    expect(uuidv7()).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });

  it("sorts in generation order, also within one millisecond", () => {
    const ids = Array.from({ length: 5000 }, uuidv7);
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(ids).size).toBe(ids.length);
  });

  // A generator of its own: the shared one keeps the latest time it gave out, which another spec's
  // fake clock may have set ahead of the real one.
  it("starts with the current time in milliseconds", () => {
    const next = uuidv7Generator();
    const before = Date.now();
    const ms = msOf(next());
    expect(ms).toBeGreaterThanOrEqual(before);
    expect(ms).toBeLessThanOrEqual(Date.now());
  });

  it("keeps sorting after ids it gave out when the clock steps back", () => {
    let now = 2_000_000_000_000;
    const next = uuidv7Generator(() => now);
    const first = next();
    now -= 60_000;
    const second = next();
    expect(second > first).toBe(true);
    expect(msOf(second)).toBe(2_000_000_000_000);
  });
});
