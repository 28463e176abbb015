import { describe, expect, it } from "vitest";

import { uuidv7 } from "./uuid-v7";

describe("uuidv7", () => {
  it("is a version 7, variant 1 UUID", () => {
    expect(uuidv7()).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });

  it("sorts in generation order, also within one millisecond", () => {
    const ids = Array.from({ length: 5000 }, uuidv7);
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it("starts with the current time in milliseconds", () => {
    const before = Date.now();
    const id = uuidv7();
    const ms = parseInt(id.replace(/-/g, "").slice(0, 12), 16);
    expect(ms).toBeGreaterThanOrEqual(before);
    expect(ms).toBeLessThanOrEqual(Date.now() + 5);
  });
});
