import { describe, expect, it } from "vitest";

import { encodePrice, PriceFormatError, priceProblem, registryPriceOf, registryPriceText } from "./registry-price";

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

describe("priceProblem", () => {
  it.each(["0", "12", "12.5", "49.95", "0.000001", "1.000000000", "79228162514264337593543.950335"])("has no problem with %s", (price) => {
    expect(priceProblem(price)).toBeNull();
  });

  it.each([
    ["12,50", "is not a non-negative decimal number"],
    ["-1", "is not a non-negative decimal number"],
    ["1e3", "is not a non-negative decimal number"],
    [".5", "is not a non-negative decimal number"],
    ["5.", "is not a non-negative decimal number"],
    ["", "is not a non-negative decimal number"],
    [" 1", "is not a non-negative decimal number"],
    ["EUR 12", "is not a non-negative decimal number"],
  ])("names the grammar problem of %j", (price, reason) => {
    expect(priceProblem(price)).toContain(reason);
  });

  it.each([
    ["0.0000001", "has more than 6 significant decimal places"],
    ["12.3456789", "has more than 6 significant decimal places"],
    ["79228162514264337593543.950336", "is larger than the registry can record"],
    ["9".repeat(40), "has too many digits"],
    ["1." + "0".repeat(256), "has too many decimal places"],
  ])("names the representability problem of %s", (price, reason) => {
    expect(priceProblem(price)).toBe(reason);
  });

  it.each([[12.5], [0], [null], [undefined], [["1"]]])("asks for a decimal string instead of %j", (price) => {
    expect(priceProblem(price)).toBe('must be a decimal string such as "12.50"');
  });
});

describe("registryPriceText", () => {
  it.each([
    [12_500_000n, "12.50"],
    [1n, "0.000001"],
    [0n, "0.00"],
    [49_950_000n, "49.95"],
    [(1n << 96n) - 1n, "79228162514264337593543.950335"],
  ])("writes %s micro-units as %s", (units, text) => {
    expect(registryPriceText(units)).toBe(text);
    expect(registryPriceOf(text)).toBe(units);
  });
});
