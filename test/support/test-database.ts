import { randomBytes } from "node:crypto";

import { Client } from "pg";

import { runMigrations } from "../../src/database/prepare-database";

const SERVER_URL = process.env.TEST_DATABASE_SERVER_URL ?? "postgres://postgres@127.0.0.1:5432";

/**
 * A database of its own for one test file, migrated from empty with the real migrations. Its name
 * says it is for tests, and only such databases are ever dropped.
 */
export async function createTestDatabase(): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `ticket_registry_test_${randomBytes(6).toString("hex")}`;
  await admin((client) => client.query(`CREATE DATABASE ${name}`));
  const url = `${SERVER_URL}/${name}`;
  await runMigrations(url);
  return {
    url,
    drop: () => admin((client) => client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)).then(() => undefined),
  };
}

async function admin<T>(run: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: `${SERVER_URL}/postgres` });
  await client.connect();
  try {
    return await run(client);
  } finally {
    await client.end();
  }
}
