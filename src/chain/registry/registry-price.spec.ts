import { describe, expect, it } from "vitest";

import { encodePrice, PriceFormatError, registryPriceOf } from "./registry-price";

describe("registryPriceOf", () => {
  it.each([
    ["0", 0n],
    ["12", 12_000_000n],
    ["12.5", 12_500_000n],
    ["12.50", 12_500_000n],
    ["0.000001", 1n],
    ["1.000000000", 1_000_000n],
    ["79228162514264337593543.950335", (1n << 96n) - 1n],
  ])("records %s as %s micro-units", (price, units) => {
    expect(registryPriceOf(price)).toBe(units);
  });

  it.each([
    ["", "is not a non-negative decimal"],
    ["-1", "is not a non-negative decimal"],
    ["1.", "is not a non-negative decimal"],
    [".5", "is not a non-negative decimal"],
    ["1e3", "is not a non-negative decimal"],
    [" 1", "is not a non-negative decimal"],
    ["0.0000001", "more than 6 significant decimal places"],
    ["79228162514264337593543.950336", "larger than the registry can record"],
    ["1".repeat(40), "too many digits"],
  ])("refuses %j", (price, reason) => {
    expect(() => registryPriceOf(price)).toThrow(PriceFormatError);
    expect(() => registryPriceOf(price)).toThrow(reason);
  });
});

describe("encodePrice", () => {
  it("carries the decimal places in the top byte and the digits below", () => {
    expect(encodePrice("12.50")).toBe((2n << 120n) | 1250n);
    expect(encodePrice("7")).toBe(7n);
  });
});
