import { describe, expect, it } from "vitest";

import { characterCount, MAX_TEXT_UTF8_BYTES, textProblem } from "./text";

describe("textProblem", () => {
  it("takes any well-formed text, astral characters and combining marks included", () => {
    for (const text of ["", "plain", "Café", "e\u0301", "𝄞🎟️", "中文", "\u{10FFFF}"]) expect(textProblem(text)).toBeNull();
  });

  it("refuses a NUL and lone surrogates, high or low, anywhere", () => {
    expect(textProblem("a\u0000")).toContain("NUL");
    expect(textProblem("\ud800")).toContain("surrogate");
    expect(textProblem("x\udc00y")).toContain("surrogate");
    expect(textProblem("\udd1e\ud834")).toContain("surrogate"); // a pair in the wrong order is two lone halves
  });

  it("caps the UTF-8 bytes that reach the chain", () => {
    expect(textProblem("𝄞".repeat(255))).toBeNull();
    expect(Buffer.byteLength("𝄞".repeat(255))).toBe(MAX_TEXT_UTF8_BYTES);
    expect(textProblem("𝄞".repeat(256))).toContain(`${MAX_TEXT_UTF8_BYTES} bytes`);
  });
});

describe("characterCount", () => {
  it("counts code points, not UTF-16 code units", () => {
    expect(characterCount("𝄞")).toBe(1);
    expect("𝄞".length).toBe(2);
    expect(characterCount("e\u0301")).toBe(2);
    expect(characterCount("🎟️")).toBe(2); // the variation selector is a code point of its own
  });
});
