import { randomBytes } from "node:crypto";

import { createDatabase, dropDatabase } from "../../scripts/stack/database";
import { runMigrations } from "../../src/database/prepare-database";

const SERVER_URL = process.env.TEST_DATABASE_SERVER_URL ?? "postgres://postgres@127.0.0.1:5432";

/** The migrated database each test file's database is copied from (set by database-global-setup.ts). */
export const TEMPLATE_DATABASE_ENV = "TEST_DATABASE_TEMPLATE";

/** Every database the tests make starts with this, and only such databases are ever dropped. */
const TEST_DATABASE_PREFIX = "ticket_registry_test_";

export interface TestDatabase {
  url: string;
  drop: () => Promise<void>;
}

/**
 * A database of its own for one test file, with every migration applied: a copy of the run's
 * migrated template (`CREATE DATABASE … TEMPLATE`, a file copy instead of some forty migrations), or,
 * where no template was made (a script outside Vitest), migrated from empty.
 */
export async function createTestDatabase(): Promise<TestDatabase> {
  const template = process.env[TEMPLATE_DATABASE_ENV];
  const database = await createEmptyDatabase(template);
  if (template === undefined) await runMigrations(database.url);
  return database;
}

/** A new database migrated from empty with the real migrations: the template of a test run. */
export async function createTemplateDatabase(): Promise<TestDatabase & { name: string }> {
  const database = await createEmptyDatabase();
  await runMigrations(database.url);
  return database;
}

async function createEmptyDatabase(template?: string): Promise<TestDatabase & { name: string }> {
  const name = `${TEST_DATABASE_PREFIX}${randomBytes(6).toString("hex")}`;
  const url = `${SERVER_URL}/${name}`;
  await createDatabase(url, template === undefined ? undefined : testDatabase(template));
  return { name, url, drop: () => dropDatabase(url) };
}

/** Only a test database is ever copied (the template's name comes from the environment). */
function testDatabase(name: string): string {
  if (!name.startsWith(TEST_DATABASE_PREFIX)) throw new Error(`${name} is not a test database`);
  return name;
}
