import fc from "fast-check";
import { describe, expect, it } from "vitest";

import { nestsDeeperThan } from "./json-nesting";

const deeper = (text: string, maxDepth: number) => nestsDeeperThan(Buffer.from(text, "utf8"), maxDepth);

/** The nesting depth of a parsed value: 0 for a scalar, 1 for [] or {}, one more per level inside. */
function depthOf(value: unknown): number {
  if (Array.isArray(value)) return 1 + Math.max(0, ...value.map(depthOf));
  if (value !== null && typeof value === "object") return 1 + Math.max(0, ...Object.values(value).map(depthOf));
  return 0;
}

describe("nestsDeeperThan", () => {
  it("counts arrays and objects alike, and allows exactly maxDepth levels", () => {
    expect(deeper("[[[]]]", 3)).toBe(false);
    expect(deeper("[[[[]]]]", 3)).toBe(true);
    expect(deeper(`{"a":{"b":[{}]}}`, 4)).toBe(false);
    expect(deeper(`{"a":{"b":[{}]}}`, 3)).toBe(true);
    expect(deeper(`[[],[],[],[]]`, 2)).toBe(false);
    expect(deeper(`42`, 0)).toBe(false);
  });

  it("skips brackets inside strings, escaped quotes included", () => {
    expect(deeper(`["[[[[{{{{"]`, 1)).toBe(false);
    expect(deeper(`["a\\"[[[[", "\\\\"]`, 1)).toBe(false);
    // `"\\"` is a string holding one backslash: the quote after it closes the string.
    expect(deeper(`["\\\\", [[]]]`, 2)).toBe(true);
    expect(deeper(`[{"k[": "v{", "x": "\\u005b"}]`, 2)).toBe(false);
  });

  it("reads UTF-8 text of any characters", () => {
    expect(deeper(`[{"名前": "𝄞[é]"}]`, 2)).toBe(false);
    expect(deeper(`[{"名前": ["𝄞"]}]`, 2)).toBe(true);
  });

  it("stops at the first bracket past the limit: millions of levels are not read through", () => {
    expect(deeper(`[{"pad":${"[".repeat(8_000_000)}`, 32)).toBe(true);
  });

  it("leaves text that is not JSON to the parser (an unterminated string, stray closers)", () => {
    expect(deeper(`["[[[[`, 1)).toBe(false);
    expect(deeper(`]${"[".repeat(100)}`, 1)).toBe(false);
  });

  it("agrees with the depth of what JSON.parse builds, for any JSON value, compact or indented", () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 6 }), fc.integer({ min: 0, max: 7 }), fc.boolean(), (value, maxDepth, indented) => {
        const text = indented ? JSON.stringify(value, null, 2) : JSON.stringify(value);
        expect(deeper(text, maxDepth)).toBe(depthOf(JSON.parse(text)) > maxDepth);
      }),
      { numRuns: 2_000 },
    );
  });
});
