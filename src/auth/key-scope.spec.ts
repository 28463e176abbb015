import { describe, expect, it } from "vitest";

import { isKeyScope, KEY_SCOPES, keyScopeProblem, scopeCovers, widerScope } from "./key-scope";

describe("key scopes", () => {
  it("lets each scope do what it needs and what the narrower ones need, never more", () => {
    const covered = KEY_SCOPES.map((held) => KEY_SCOPES.filter((needed) => scopeCovers(held, needed)));
    expect(covered).toEqual([["read"], ["read", "scan"], ["read", "scan", "full"]]);
  });

  it("takes the wider of two", () => {
    expect(widerScope("scan", "full")).toBe("full");
    expect(widerScope("full", "read")).toBe("full");
    expect(widerScope("read", "scan")).toBe("scan");
    expect(widerScope("read", "read")).toBe("read");
  });

  it("knows the three names exactly, and says what to use instead of another", () => {
    expect(KEY_SCOPES.every(isKeyScope)).toBe(true);
    for (const other of ["Full", "admin", "", " scan", "write", 1, null]) expect(isKeyScope(other)).toBe(false);
    expect(keyScopeProblem("scan")).toBeNull();
    expect(keyScopeProblem("admin")).toBe('"admin" is not a scope: use one of full, scan, read');
  });
});
