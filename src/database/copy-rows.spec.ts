import { describe, expect, it } from "vitest";

import { arrayLiteral, copyText } from "./copy-rows";

describe("copyText", () => {
  it("writes NULL, booleans and numbers as COPY reads them", () => {
    expect(copyText(null)).toBe("\\N");
    expect(copyText(true)).toBe("t");
    expect(copyText(false)).toBe("f");
    expect(copyText(12n)).toBe("12");
    expect(copyText(1.5)).toBe("1.5");
  });

  it("escapes the characters that delimit rows and columns", () => {
    expect(copyText("a\tb\nc\rd\\e")).toBe("a\\tb\\nc\\rd\\\\e");
    expect(copyText("\\N")).toBe("\\\\N");
    expect(copyText("plain")).toBe("plain");
  });
});

describe("arrayLiteral", () => {
  it("writes a column as PostgreSQL's array text: NULL bare, every other value quoted, quotes and backslashes escaped", () => {
    const rows = [
      ["a", 1n],
      [null, true],
      ['say "hi" \\ {x}, NULL', 1.5],
      ["NULL", null],
    ];
    expect(arrayLiteral(rows, 0)).toBe('{"a",NULL,"say \\"hi\\" \\\\ {x}, NULL","NULL"}');
    expect(arrayLiteral(rows, 1)).toBe('{"1","true","1.5",NULL}');
    expect(arrayLiteral([], 0)).toBe("{}");
  });
});
