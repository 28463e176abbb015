import { readFileSync } from "node:fs";

import { describe, expect, it } from "vitest";

import { generateSchema, SCHEMA_PATH } from "../generate";

describe("the generated client types", () => {
  it("are what openapi-typescript makes of the committed openapi.json (else run `npm run client`)", async () => {
    const committed = readFileSync(SCHEMA_PATH, "utf8");
    const fresh = await generateSchema();
    // Compared as lines, so a failure shows where the document and the types part.
    expect(committed.split("\n"), "client/src/schema.ts is stale: run `npm run client` and commit it").toEqual(fresh.split("\n"));
  });
});
