import { randomBytes } from "node:crypto";

import { describe, expect, it } from "vitest";

import { isSealed, SecretBox } from "./secret-box";

const SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
const ORGANIZATION = "0194c1a2-0000-7000-8000-000000000001";

describe("SecretBox", () => {
  const sut = new SecretBox(randomBytes(32));

  it("seals a secret so that the stored value does not contain it, and opens it again", () => {
    const stored = sut.seal(SECRET, ORGANIZATION);
    expect(isSealed(stored)).toBe(true);
    expect(stored).not.toContain(SECRET.slice("whsec_".length));
    expect(sut.open(stored, ORGANIZATION)).toBe(SECRET);
  });

  it("never seals the same secret to the same value", () => {
    expect(sut.seal(SECRET, ORGANIZATION)).not.toBe(sut.seal(SECRET, ORGANIZATION));
  });

  it("refuses a value sealed for another owner, under another key, or altered", () => {
    const stored = sut.seal(SECRET, ORGANIZATION);
    expect(() => sut.open(stored, "0194c1a2-0000-7000-8000-000000000002")).toThrow(/does not open/);
    expect(() => new SecretBox(randomBytes(32)).open(stored, ORGANIZATION)).toThrow(/does not open/);
    const altered = stored.slice(0, -4) + (stored.endsWith("AAAA") ? "BBBB" : "AAAA");
    expect(() => sut.open(altered, ORGANIZATION)).toThrow(/does not open/);
  });

  it("reads values stored before a key was configured as they are", () => {
    expect(sut.open(SECRET, ORGANIZATION)).toBe(SECRET);
  });

  it("without a key stores secrets plain and says why it cannot open a sealed one", () => {
    const plain = new SecretBox(null);
    expect(plain.seal(SECRET, ORGANIZATION)).toBe(SECRET);
    expect(() => plain.open(sut.seal(SECRET, ORGANIZATION), ORGANIZATION)).toThrow(/WEBHOOK_SECRETS_KEY is not set/);
  });

  it("wants a 32-byte key", () => {
    expect(() => new SecretBox(randomBytes(16))).toThrow(/32 bytes/);
  });
});
