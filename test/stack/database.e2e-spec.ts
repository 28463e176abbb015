import { Client } from "pg";
import { describe, expect, it } from "vitest";

import { createThrowawayDatabase } from "../../scripts/stack/database";

const SERVER_URL = process.env.TEST_DATABASE_SERVER_URL ?? "postgres://postgres@127.0.0.1:5432";

async function exists(name: string): Promise<boolean> {
  const client = new Client({ connectionString: `${SERVER_URL}/postgres` });
  await client.connect();
  try {
    return (await client.query("SELECT 1 FROM pg_database WHERE datname = $1", [name])).rowCount === 1;
  } finally {
    await client.end();
  }
}

describe("createThrowawayDatabase", () => {
  it("creates a database named for its purpose, and drops it with its open connections", async () => {
    const database = await createThrowawayDatabase(SERVER_URL, "ticket_registry_test_stack");
    expect(database.name).toMatch(/^ticket_registry_test_stack_[0-9a-f]{8}$/);
    expect(await exists(database.name)).toBe(true);
    const open = new Client({ connectionString: database.url });
    await open.connect();
    open.on("error", () => undefined);
    await database.drop();
    expect(await exists(database.name)).toBe(false);
    await open.end().catch(() => undefined);
  });
});
