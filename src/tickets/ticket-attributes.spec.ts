import { describe, expect, it } from "vitest";

import { CHAIN_TRAIT_TYPES } from "../common/token-traits";
import { acceptedAttributes, attributesProblem } from "./ticket-attributes";

const seat = { traitType: "Seat", value: "12A" };
const many = (count: number) => Array.from({ length: count }, (_, index) => ({ traitType: `Trait ${index}`, value: index }));

describe("attributesProblem", () => {
  it.each([
    [[]],
    [[seat]],
    [many(32)],
    [[{ traitType: "x".repeat(64), value: "v".repeat(255) }]],
    [[{ traitType: "𝄞".repeat(64), value: "𝄞".repeat(255) }]],
    [
      [
        { traitType: "Tier", value: 3, displayType: "boost_number" },
        { traitType: "Doors", value: 1_900_000_000, displayType: "date" },
      ],
    ],
    [
      [
        { traitType: "Discount", value: -12.5, displayType: "boost_percentage" },
        { traitType: "Row", value: 0, displayType: "number" },
      ],
    ],
    [[{ traitType: "Seat", value: "1", displayType: null }]],
    [
      [
        { traitType: "Stage", value: "Main" },
        { traitType: "Statement", value: "x" },
      ],
    ],
  ])("takes %j", (attributes) => {
    expect(attributesProblem(attributes)).toBeNull();
  });

  it("refuses the 33rd attribute, naming it", () => {
    expect(attributesProblem(many(33))).toEqual({ field: "attributes[32]", message: "is one too many: a ticket has at most 32 attributes" });
  });

  it.each(CHAIN_TRAIT_TYPES.flatMap((trait) => [trait, trait.toUpperCase(), ` ${trait.toLowerCase()} `]))("refuses the chain's trait %j", (traitType) => {
    const problem = attributesProblem([seat, seat, seat, { traitType, value: "Valid" }]);
    expect(problem?.field).toBe("attributes[3].traitType");
    expect(problem?.message).toContain("the token states that trait from the chain");
  });

  it("refuses a chain trait in a compatibility form (fullwidth letters)", () => {
    expect(attributesProblem([{ traitType: "Ｓｔａｔｅ", value: "Valid" }])?.field).toBe("attributes[0].traitType");
  });

  it.each([
    [{ traitType: "x".repeat(65), value: "v" }, ".traitType", "must be at most 64 characters (Unicode code points)"],
    [{ traitType: "", value: "v" }, ".traitType", "must not be blank"],
    [{ traitType: "  ", value: "v" }, ".traitType", "must not be blank"],
    [{ value: "v" }, ".traitType", "must be a string"],
    [{ traitType: 7, value: "v" }, ".traitType", "must be a string"],
    [{ traitType: "St\u200Bate", value: "v" }, ".traitType", "must not contain control, bidirectional or zero-width characters"],
    [{ traitType: "a\u0000", value: "v" }, ".traitType", "must not contain a NUL character (U+0000)"],
    [{ traitType: "Seat", value: Infinity }, ".value", "must be a finite number"],
    [{ traitType: "Seat", value: -Infinity }, ".value", "must be a finite number"],
    [{ traitType: "Seat", value: NaN }, ".value", "must be a finite number"],
    [{ traitType: "Seat", value: { row: 1 } }, ".value", "must be a string of at most 255 characters or a finite number"],
    [{ traitType: "Seat", value: true }, ".value", "must be a string of at most 255 characters or a finite number"],
    [{ traitType: "Seat", value: null }, ".value", "must be a string of at most 255 characters or a finite number"],
    [{ traitType: "Seat" }, ".value", "must be a string of at most 255 characters or a finite number"],
    [{ traitType: "Seat", value: "v".repeat(256) }, ".value", "must be at most 255 characters (Unicode code points)"],
    [{ traitType: "Seat", value: "\ud800" }, ".value", "must not contain a lone UTF-16 surrogate (an unpaired \\uD800-\\uDFFF escape)"],
    [{ traitType: "Seat", value: 1, displayType: "percent" }, ".displayType", "must be one of number, date, boost_number, boost_percentage"],
    [{ traitType: "Seat", value: "12", displayType: "number" }, ".value", "must be a number with displayType number, which wallets render as a number"],
    ["Seat", "", "must be a {traitType, value, displayType?} object"],
    [null, "", "must be a {traitType, value, displayType?} object"],
    [[seat], "", "must be a {traitType, value, displayType?} object"],
  ])("refuses %j: %s %s", (entry, path, message) => {
    expect(attributesProblem([seat, entry])).toEqual({ field: `attributes[1]${path}`, message });
  });

  it.each([{}, "Seat", 1, { 0: seat }])("refuses %j: not an array", (value) => {
    expect(attributesProblem(value)).toEqual({ field: "attributes", message: "must be an array of {traitType, value, displayType?} objects" });
  });
});

describe("acceptedAttributes", () => {
  it("keeps each entry's three fields in order, displayType only when given", () => {
    const sent = [
      { traitType: "Seat", value: "12A", extra: "dropped" },
      { traitType: "Row", value: 3, displayType: "number" },
      { traitType: "Gate", value: "B", displayType: null },
    ];
    expect(attributesProblem(sent)).toBeNull();
    expect(acceptedAttributes(sent as Parameters<typeof acceptedAttributes>[0])).toEqual([
      { traitType: "Seat", value: "12A" },
      { traitType: "Row", value: 3, displayType: "number" },
      { traitType: "Gate", value: "B" },
    ]);
  });
});
