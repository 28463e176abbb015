import { describe, expect, it } from "vitest";

import { isUint64Input, toUint64, UINT64_MAX, uint64Json, uint64Problem } from "./uint64";

const SAFE = Number.MAX_SAFE_INTEGER; // 2^53 - 1

describe("isUint64Input", () => {
  it.each([[0], [1], [1_750_000_000], [SAFE], ["0"], ["1750000000"], ["9007199254740992"], ["18446744073709551615"]])("takes %j", (value) => {
    expect(isUint64Input(value)).toBe(true);
  });

  it.each([
    ["2^53 as a number", 2 ** 53],
    ["a larger number", 1e21],
    ["2^64 as a string", "18446744073709551616"],
    ["a 21-digit string", "100000000000000000000"],
    ["a leading zero", "01"],
    ["a negative string", "-1"],
    ["a decimal string", "1.5"],
    ["an exponent string", "1e3"],
    ["a signed string", "+1"],
    ["a padded string", " 1"],
    ["a blank string", ""],
    ["a fraction", 1.5],
    ["a negative number", -1],
    ["NaN", Number.NaN],
    ["Infinity", Number.POSITIVE_INFINITY],
    ["a bigint", 1n],
    ["null", null],
    ["a boolean", true],
  ])("refuses %s", (_case, value) => {
    expect(isUint64Input(value)).toBe(false);
  });
});

describe("toUint64", () => {
  it("converts numbers and decimal strings exactly", () => {
    expect(toUint64(0)).toBe(0n);
    expect(toUint64(SAFE)).toBe(9007199254740991n);
    expect(toUint64("18446744073709551615")).toBe(UINT64_MAX);
  });
});

describe("uint64Problem", () => {
  it("asks for a decimal string when a JSON number is too large to arrive exactly", () => {
    expect(uint64Problem(2 ** 53)).toBe("is above 2^53 - 1: send integers this large as decimal strings");
    expect(uint64Problem(1e21)).toContain("send integers this large as decimal strings");
  });

  it.each([[-1], [1.5], ["18446744073709551616"], ["01"], [null]])("states the general rule for %j", (value) => {
    expect(uint64Problem(value)).toBe("must be an unsigned 64-bit integer (a JSON number up to 2^53 - 1, or a decimal string up to 18446744073709551615)");
  });
});

describe("uint64Json", () => {
  it("answers a number while it is exact and a decimal string beyond", () => {
    expect(uint64Json(0n)).toBe(0);
    expect(uint64Json(9007199254740991n)).toBe(SAFE);
    expect(uint64Json(9007199254740992n)).toBe("9007199254740992");
    expect(uint64Json(UINT64_MAX)).toBe("18446744073709551615");
  });

  it("round-trips through isUint64Input and toUint64", () => {
    for (const value of [0n, 9007199254740991n, 9007199254740992n, UINT64_MAX]) {
      const json = uint64Json(value);
      expect(isUint64Input(json)).toBe(true);
      expect(toUint64(json)).toBe(value);
    }
  });
});
