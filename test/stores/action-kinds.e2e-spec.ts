import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { ACTION_KINDS } from "../../src/common/actions";
import { openStoreDatabase, type StoreDatabase } from "../support/store-database";

let db: StoreDatabase;

beforeAll(async () => {
  db = await openStoreDatabase();
});

afterAll(async () => {
  await db?.close();
});

/** The names a CHECK (kind IN (…)) allows, as PostgreSQL stores it: `(kind = ANY (ARRAY['newEvent'::text, …]))`. */
function namesIn(definition: string): string[] {
  return [...definition.matchAll(/'([^']+)'::text/g)].map((match) => match[1]);
}

describe("the chain_actions.kind CHECK constraint of the migrated database", () => {
  it("allows exactly the ledger kinds of the ACTIONS table (a new kind needs a migration, a migration a row)", async () => {
    const constraints = await db.dataSource.query<{ definition: string }[]>(
      `SELECT pg_get_constraintdef(c.oid) AS definition
         FROM pg_constraint c
         JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = ANY (c.conkey)
        WHERE c.conrelid = 'chain_actions'::regclass AND c.contype = 'c' AND a.attname = 'kind'`,
    );

    expect(constraints).toHaveLength(1);
    expect(namesIn(constraints[0].definition).sort()).toEqual([...ACTION_KINDS].sort());
  });
});
