import { describe, expect, it } from "vitest";

import { formatPosition, LOG_START, parsePosition } from "./change-position";

describe("change log positions (SSE ids)", () => {
  it("reads back what it writes", () => {
    for (const position of [LOG_START, { tx: "48213", id: "1907" }, { tx: "18446744073709551615", id: "9223372036854775807" }]) {
      expect(parsePosition(formatPosition(position))).toEqual(position);
    }
  });

  it("refuses anything else", () => {
    for (const text of ["", "yesterday", "12", "12-", "-12", "1-2-3", "0x10-1", "18446744073709551616-1", "1-9223372036854775808", "1.5-2"]) {
      expect(parsePosition(text), text).toBeNull();
    }
    expect(parsePosition(" 007-08 ")).toEqual({ tx: "7", id: "8" });
  });
});
