import { describe, expect, it } from "vitest";

import { FULL_RECOUNT_AFTER_MS, OrganizationKeyCounts, RECOUNT_AFTER_MS } from "./organization-key-counts";

/** Counts over a table of live keys per organization that the test changes, and a clock it moves. */
function fixture(maxKeys = 3) {
  const live = new Map<string, number>();
  let now = 1_000_000;
  let counts = 0;
  const sut = new OrganizationKeyCounts(
    maxKeys,
    async (organizationId) => {
      counts += 1;
      return Math.min(maxKeys, live.get(organizationId) ?? 0);
    },
    () => now,
  );
  return {
    sut,
    live,
    counts: () => counts,
    advance: (ms: number) => (now += ms),
  };
}

describe("OrganizationKeyCounts", () => {
  it("counts once, then adds the keys it claims itself until the count is old", async () => {
    const { sut, counts, advance } = fixture();
    expect(await sut.isFull("org")).toBe(false);
    sut.added("org");
    sut.added("org");
    expect(await sut.isFull("org")).toBe(false);
    sut.added("org");
    expect(await sut.isFull("org")).toBe(true);
    expect(counts()).toBe(1);
    advance(FULL_RECOUNT_AFTER_MS);
    // The table has none of them (the test never wrote it): a recount, since "full" is a second old.
    expect(await sut.isFull("org")).toBe(false);
    expect(counts()).toBe(2);
  });

  it("sees keys other instances added once its count is RECOUNT_AFTER_MS old", async () => {
    const { sut, live, counts, advance } = fixture();
    expect(await sut.isFull("org")).toBe(false);
    live.set("org", 3);
    advance(RECOUNT_AFTER_MS - 1);
    expect(await sut.isFull("org")).toBe(false);
    advance(1);
    expect(await sut.isFull("org")).toBe(true);
    expect(counts()).toBe(2);
  });

  it("sees a full organization's expired keys within a second", async () => {
    const { sut, live, advance } = fixture();
    live.set("org", 3);
    expect(await sut.isFull("org")).toBe(true);
    live.set("org", 2);
    advance(FULL_RECOUNT_AFTER_MS - 1);
    expect(await sut.isFull("org")).toBe(true);
    advance(1);
    expect(await sut.isFull("org")).toBe(false);
  });

  it("counts each organization apart, and once for the requests that ask at the same time", async () => {
    const { sut, live, counts } = fixture();
    live.set("full", 3);
    expect(await Promise.all([sut.isFull("full"), sut.isFull("full"), sut.isFull("other")])).toEqual([true, true, false]);
    expect(counts()).toBe(2);
  });
});
