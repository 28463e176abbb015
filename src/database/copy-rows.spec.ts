import { describe, expect, it } from "vitest";

import { copyText } from "./copy-rows";

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
