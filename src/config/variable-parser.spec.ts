import { describe, expect, it } from "vitest";

import { EnvReader } from "./env-reader";
import { VariableParser } from "./variable-parser";

function parserOver(env: Record<string, string>): VariableParser {
  return new VariableParser(new EnvReader(env));
}

describe("VariableParser", () => {
  it("reads an unset or empty variable as its default", () => {
    const sut = parserOver({ PORT: "", NAME: "" });
    expect([sut.integer("PORT", 3000, 0), sut.string("NAME", "fallback"), sut.optional("NAME"), sut.list("HOSTS")]).toEqual([3000, "fallback", null, []]);
    expect(sut.problems).toEqual([]);
  });

  it("keeps integers, decimals and choices within their bounds, and falls back with a problem outside them", () => {
    const sut = parserOver({ LOW: "0", HIGH: "70000", NEGATIVE: "-1", FRACTION: "1.5", GOOD: "443", SCALE: "0.25", MODE: "loud" });
    expect(sut.integer("LOW", 5, 1)).toBe(5);
    expect(sut.integer("HIGH", 5, 0, 65_535)).toBe(5);
    expect(sut.integer("NEGATIVE", 5, 0)).toBe(5);
    expect(sut.integer("FRACTION", 5, 0)).toBe(5);
    expect(sut.integer("GOOD", 5, 0, 65_535)).toBe(443);
    expect(sut.decimal("SCALE", 1, 0.0001, 1)).toBe(0.25);
    expect(sut.oneOf("MODE", ["quiet", "normal"], "normal")).toBe("normal");
    expect(sut.problems).toEqual([
      'LOW must be an integer from 1 to 9007199254740991, got "0"',
      'HIGH must be an integer from 0 to 65535, got "70000"',
      'NEGATIVE must be an integer from 0 to 9007199254740991, got "-1"',
      'FRACTION must be an integer from 0 to 9007199254740991, got "1.5"',
      'MODE must be one of quiet, normal, got "loud"',
    ]);
  });

  it("reads true, false, 1 and 0 as booleans and nothing else", () => {
    const sut = parserOver({ A: "1", B: "false", C: "yes" });
    expect([sut.boolean("A", false), sut.boolean("B", true), sut.boolean("C", true)]).toEqual([true, false, true]);
    expect(sut.problems).toEqual(['C must be true or false, got "yes"']);
  });

  it("splits lists on commas and drops blanks", () => {
    expect(parserOver({ HOSTS: " a.test, ,b.test ," }).list("HOSTS")).toEqual(["a.test", "b.test"]);
  });

  it("checks a URL's protocol and never echoes a value that is not a URL, which may hold a password", () => {
    const sut = parserOver({ DB: "mysql://x", BROKEN: "postgres//user:hunter2@host" });
    expect(sut.url("DB", null, ["postgres:"])).toBe("mysql://x");
    expect(sut.url("BROKEN", null, ["postgres:"])).toBe("postgres//user:hunter2@host");
    expect(sut.url("UNSET", null, ["postgres:"])).toBeNull();
    expect(sut.problems).toEqual(['DB must use postgres:, got "mysql:"', "BROKEN must be a URL"]);
  });

  it("reads coin amounts in wei with at most 18 decimals", () => {
    const sut = parserOver({ HALF: "0.5", TOO_FINE: "0.0000000000000000001" });
    expect(sut.coinAmount("HALF")).toBe(500_000_000_000_000_000n);
    expect(sut.coinAmount("UNSET")).toBe(0n);
    expect(sut.coinAmount("TOO_FINE")).toBe(0n);
    expect(sut.problems).toEqual(['TOO_FINE must be an amount of the native coin such as 0.5 (at most 18 decimals), got "0.0000000000000000001"']);
  });
});
