import { describe, expect, it } from "vitest";

import { EnvReader } from "./env-reader";

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

  it("remembers every name it was asked for, set or not, sorted", () => {
    const sut = new EnvReader({ SET: "value" });
    sut.raw("ENV_READER_SPEC_NEVER_SET");
    sut.raw("SET");
    sut.raw("A_NAME");
    expect(sut.namesRead()).toEqual(["A_NAME", "ENV_READER_SPEC_NEVER_SET", "SET"]);
  });

  it("remembers the names per reader: another reader's made-up names are not among them", () => {
    new EnvReader({}).raw("ENV_READER_SPEC_OTHER_READER");
    const sut = new EnvReader({});
    sut.raw("PORT");
    expect(sut.namesRead()).toEqual(["PORT"]);
  });
});
