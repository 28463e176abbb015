import { describe, expect, it } from "vitest";

import { EnvReader, variableNamesRead } from "./env-reader";

describe("EnvReader", () => {
  it("reads raw strings, an empty value as unset", () => {
    const sut = new EnvReader({ PORT: "3000", EMPTY: "", SPACES: "  " });
    expect([sut.raw("PORT"), sut.raw("EMPTY"), sut.raw("UNSET"), sut.raw("SPACES")]).toEqual(["3000", null, null, "  "]);
  });

  it("reads the process's environment when given none", () => {
    process.env.ENV_READER_SPEC_PROBE = "probe";
    try {
      expect(new EnvReader().raw("ENV_READER_SPEC_PROBE")).toBe("probe");
    } finally {
      delete process.env.ENV_READER_SPEC_PROBE;
    }
  });

  it("remembers every name it was asked for, set or not", () => {
    new EnvReader({}).raw("ENV_READER_SPEC_NEVER_SET");
    expect(variableNamesRead()).toContain("ENV_READER_SPEC_NEVER_SET");
    expect(variableNamesRead()).toEqual([...variableNamesRead()].sort());
  });
});
