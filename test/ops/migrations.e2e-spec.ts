import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { join } from "node:path";
import { promisify } from "node:util";

import { Client } from "pg";
import { afterAll, describe, expect, it } from "vitest";

import { dataSourceOptions } from "../../src/database/data-source-options";
import { runMigrations } from "../../src/database/prepare-database";

const SERVER_URL = process.env.TEST_DATABASE_SERVER_URL ?? "postgres://postgres@127.0.0.1:5432";
const ROOT = join(__dirname, "..", "..");
const created: string[] = [];

/** A database name that says it is for tests; the migrations are not applied. */
function emptyDatabaseUrl(): string {
  const name = `ticket_registry_test_${randomBytes(6).toString("hex")}`;
  created.push(name);
  return `${SERVER_URL}/${name}`;
}

async function query<T>(url: string, sql: string): Promise<T[]> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(sql)).rows as T[];
  } finally {
    await client.end();
  }
}

const knownMigrations = () => (dataSourceOptions(SERVER_URL).migrations as unknown[]).length;

afterAll(async () => {
  for (const name of created) await query(`${SERVER_URL}/postgres`, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
});

describe("migrations", () => {
  it("npm run migration:run creates the database and applies every migration once; a second run applies none", async () => {
    const url = emptyDatabaseUrl();
    const run = () =>
      promisify(execFile)("npm", ["run", "--silent", "migration:run"], { cwd: ROOT, env: { ...process.env, DATABASE_URL: url, APP_MODE: "development" } });
    const first = await run();
    expect(first.stdout).toMatch(/created the database[\s\S]*applied migrations: InitialSchema\d+/);
    const applied = await query<{ name: string }>(url, "SELECT name FROM schema_migrations ORDER BY id");
    expect(applied).toHaveLength(knownMigrations());
    expect((await run()).stdout).toMatch(/no pending migrations/);
  }, 120_000);

  it("instances migrating at the same time take turns: each migration is applied exactly once", async () => {
    const url = emptyDatabaseUrl();
    await query(`${SERVER_URL}/postgres`, `CREATE DATABASE ${new URL(url).pathname.slice(1)}`);
    const results = await Promise.all(Array.from({ length: 4 }, () => runMigrations(url)));
    expect(results.flat()).toHaveLength(knownMigrations());
    expect(results.filter((applied) => applied.length > 0)).toHaveLength(1);
    const rows = await query<{ count: string }>(url, "SELECT count(*) FROM schema_migrations");
    expect(Number(rows[0].count)).toBe(knownMigrations());
  }, 120_000);
});
