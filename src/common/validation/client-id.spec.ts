import { describe, expect, it } from "vitest";

import { clientIdProblem as sut, codePointName, HIDDEN_CHARACTER, idLookupProblem } from "./client-id";

/** Every code point from `from` to `to`, each as a one-character string. */
const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, index) => String.fromCodePoint(from + index));

const CONTROLS = [...range(0x00, 0x1f), "\u007f", ...range(0x80, 0x9f)];
const BIDI_CONTROLS = ["\u061c", "\u200e", "\u200f", ...range(0x202a, 0x202e), ...range(0x2066, 0x2069)];
const ZERO_WIDTH = [...range(0x200b, 0x200d), "\u2060", "\ufeff"];

describe("clientIdProblem", () => {
  it.each([
    "0b9e2c1a-7d4f-4a7e-8f3e-5c2d1b0a9f87",
    "ticket 1",
    "a/b?c#d%2F&e=f",
    " ",
    ".a",
    "a.",
    "..a",
    ". .",
    "e\u0301",
    "שלום",
    "🎫",
    "👍🏽",
    "🇳🇱",
    "𝄞".repeat(255),
    "x".repeat(255),
    "\u00a0non-breaking",
  ])("takes %j", (id) => {
    expect(sut(id)).toBeNull();
  });

  it("counts code points: 255 astral characters (510 UTF-16 units) are taken, 256 refused", () => {
    expect("𝄞".repeat(255).length).toBe(510);
    expect(sut("𝄞".repeat(255))).toBeNull();
    expect(sut("𝄞".repeat(256))).toBe("must be at most 255 characters (Unicode code points)");
    expect(sut("x".repeat(256))).toBe("must be at most 255 characters (Unicode code points)");
  });

  it("refuses what is not a non-blank string", () => {
    expect(sut("")).toBe("must not be blank");
    for (const value of [undefined, null, 42, ["t"], { id: "t" }, true]) expect(sut(value)).toBe("must be a string");
  });

  it.each(CONTROLS.map((character) => [codePointName(character), character]))("refuses the control character %s anywhere", (_name, character) => {
    for (const id of [character, `a${character}`, `${character}a`, `a${character}b`]) expect(sut(id), JSON.stringify(id)).not.toBeNull();
  });

  it.each(BIDI_CONTROLS.map((character) => [codePointName(character), character]))("refuses the bidirectional control %s", (name, character) => {
    expect(sut(`ab${character}c`)).toBe(
      `must not contain ${name} (character 3), a bidirectional control, which reorders the text around it: ids refuse control, bidirectional and zero-width characters`,
    );
  });

  it.each(ZERO_WIDTH.map((character) => [codePointName(character), character]))("refuses the zero-width character %s", (name, character) => {
    expect(sut(`${character}ab`)).toBe(
      `must not contain ${name} (character 1), a zero-width character, which cannot be seen: ids refuse control, bidirectional and zero-width characters`,
    );
  });

  it("names a control character and counts its position in code points", () => {
    expect(sut("𝄞𝄞\tx")).toBe("must not contain U+0009 (character 3), a control character: ids refuse control, bidirectional and zero-width characters");
    expect(sut("a\u0085")).toContain("U+0085 (character 2), a control character");
  });

  it("refuses a NUL and lone surrogates as every string field does", () => {
    expect(sut("a\u0000b")).toBe("must not contain a NUL character (U+0000)");
    expect(sut("a\ud800b")).toContain("lone UTF-16 surrogate");
  });

  it.each([".", "..", "...", ".".repeat(255)])("refuses %j: only dots", (id) => {
    expect(sut(id)).toBe('must not be only dots: ".", ".." and the like are path steps, so no URL could name its page');
  });

  it("refuses exactly the listed characters among the first 0x30000 code points", () => {
    const refused = new Set([...CONTROLS, ...BIDI_CONTROLS, ...ZERO_WIDTH]);
    for (let point = 0; point < 0x30000; point++) {
      if (point >= 0xd800 && point <= 0xdfff) continue;
      const character = String.fromCodePoint(point);
      expect(HIDDEN_CHARACTER.test(character), codePointName(character)).toBe(refused.has(character));
    }
  });
});

describe("idLookupProblem", () => {
  it("takes 1 to 255 code points, whatever the characters (an id accepted before a rule must still be found)", () => {
    expect(idLookupProblem("𝄞".repeat(255))).toBeNull();
    expect(idLookupProblem("legacy\u202Eid")).toBeNull();
    expect(idLookupProblem("..")).toBeNull();
    expect(idLookupProblem("")).toBe("must be 1 to 255 characters (Unicode code points)");
    expect(idLookupProblem("𝄞".repeat(256))).toBe("must be 1 to 255 characters (Unicode code points)");
  });
});

describe("codePointName", () => {
  it("writes U+ and at least four hex digits, in capitals", () => {
    expect(codePointName("\t")).toBe("U+0009");
    expect(codePointName("\u202e")).toBe("U+202E");
    expect(codePointName("𝄞")).toBe("U+1D11E");
  });
});
