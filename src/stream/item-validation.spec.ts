import { describe, expect, it } from "vitest";

import { compiledCheck } from "../common/validation/compiled-check";
import { type ClassConstructor, validateItem, validateWithClassValidator } from "../common/validation/validate-item";
import { STREAM_ACTIONS } from "./stream-actions";

/** Values each field is tried with: valid ones by the field's name, and what breaks every kind of rule. */
const VALID: Record<string, unknown[]> = {
  eventId: ["e-1", "Café 𝄞", "a/b?c#d %", "𝄞".repeat(255)],
  ticketId: ["t-1", "x".repeat(255), "🎫".repeat(200), ".a", " "],
  price: ["49.95", "0", "12.500000"],
  orderTime: [1_750_000_000, "18446744073709551615", 0],
  uri: ["ipfs://bafy/1.json", "", "https://img.example.com/1.png", "ar://Q2Wl1bnTgDRi0A9Q/1.json", "IPFS://bafy"],
  to: ["0x52908400098527886E0F7030069857D2E4169EE7", "0x52908400098527886e0f7030069857d2e4169ee7"],
  currency: ["EUR"],
  callbackUrl: ["https://bench.example.com/cb"],
  ticketeerId: ["bench-organization", "ticketeer 𝄞"],
  eventName: ["Concert", ""],
  shopUrl: ["https://shop.example.com", ""],
  latitude: [52.3731, -90],
  longitude: [4.89, 180],
  name: ["Concert, seat 12A", ""],
  description: ["x".repeat(2000), "", "𝄞".repeat(2000)],
  animationUrl: ["ipfs://bafy/1.mp4", "", "https://video.example.com/1.mp4"],
  attributes: [[{ traitType: "Seat", value: "12A" }], [], [{ traitType: "Row", value: 3, displayType: "number" }]],
  ticketImageUrl: ["ipfs://bafy/ticket.png", ""],
};
const BROKEN: unknown[] = [
  undefined,
  null,
  "",
  " ",
  "x".repeat(256),
  "𝄞".repeat(255),
  "a\u0000b",
  "\ud800",
  -1,
  1.5,
  Number.MAX_SAFE_INTEGER + 2,
  "49.9500001",
  "-1",
  "1e3",
  "18446744073709551616",
  "not a uri",
  "http://shop.example.com",
  "javascript:alert(1)",
  "data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==",
  "file:///etc/passwd",
  "ipfs:bafy",
  "ipfs://bafy/a b",
  'https://img.example.com/"onerror="x',
  ".",
  "..",
  "...",
  "a\tb",
  "\u007f",
  "a\u0085",
  "\u202Eevil",
  "a\u2066b",
  "a\u200Bb",
  "\uFEFF",
  "0x0000000000000000000000000000000000000000",
  "0x52908400098527886E0F7030069857D2E4169Ee7",
  true,
  [],
  ["e-1"],
  {},
  { toString: "x" },
  91,
  Infinity,
  "x".repeat(2001),
  [{ traitType: "State", value: "Valid" }],
  [{ traitType: "Seat", value: Infinity }],
  [{ traitType: "Seat", value: { nested: 1 } }],
  [{ traitType: "Seat", value: "1", displayType: "number" }],
  Array.from({ length: 33 }, (_, index) => ({ traitType: `Trait ${index}`, value: index })),
];

function* items(fields: string[], random: () => number): Generator<Record<string, unknown>> {
  const valid = () => Object.fromEntries(fields.map((field) => [field, (VALID[field] ?? BROKEN)[0]]));
  yield valid();
  for (const field of fields) {
    for (const value of [...(VALID[field] ?? []), ...BROKEN]) yield { ...valid(), [field]: value };
    const { [field]: _left, ...without } = valid();
    yield without;
  }
  yield { ...valid(), unknownField: "\u0000", constructor: "x" };
  yield JSON.parse(`{"__proto__": {"eventId": "e-1"}, "ticketId": "t-1"}`) as Record<string, unknown>;
  const pick = <T>(values: T[]) => values[Math.floor(random() * values.length)];
  for (let i = 0; i < 3000; i++) {
    yield Object.fromEntries(fields.filter(() => random() < 0.9).map((field) => [field, random() < 0.6 ? pick(VALID[field] ?? BROKEN) : pick(BROKEN)]));
  }
}

/** A small deterministic generator: the same items on every run. */
function seeded(seed: number): () => number {
  return () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
}

describe("the compiled check", () => {
  const dtos = [...new Set(Object.values(STREAM_ACTIONS).map(({ descriptor }) => descriptor.dto as ClassConstructor<object>))];

  it("compiles every item DTO of the API (each takes the fast path)", () => {
    for (const dto of dtos) expect(compiledCheck(dto), dto.name).not.toBeNull();
  });

  it.each(dtos.map((dto) => [dto.name, dto] as const))("gives exactly class-validator's outcome for %s: the value kept, or the error", (_name, dto) => {
    const fields = [...(compiledCheck(dto)?.properties ?? [])];
    let passed = 0;
    for (const raw of items(fields, seeded(fields.length))) {
      const expected = validateWithClassValidator(dto, raw);
      const actual = validateItem(dto, raw);
      expect(actual, JSON.stringify(raw)).toEqual(expected);
      if (actual.value) {
        expect(Object.getPrototypeOf(actual.value)).toBe(dto.prototype);
        expect(Object.keys(actual.value)).toEqual(Object.keys(expected.value as object));
        passed++;
      }
    }
    expect(passed).toBeGreaterThan(0);
  });
});
