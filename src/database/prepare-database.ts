import { Client } from "pg";
import { DataSource } from "typeorm";

import { dataSourceOptions } from "./data-source-options";

/** Any constant shared by every instance: the advisory lock that lets one of them migrate at a time. */
const MIGRATION_LOCK_ID = 7_361_042_118;

/** Creates the database named in `url` when it does not exist (development machines start empty). */
export async function createDatabaseIfMissing(url: string): Promise<boolean> {
  const target = new URL(url);
  const name = decodeURIComponent(target.pathname.slice(1));
  const admin = new URL(url);
  admin.pathname = "/postgres";
  const client = new Client({ connectionString: admin.toString() });
  await client.connect();
  try {
    const found = await client.query("SELECT 1 FROM pg_database WHERE datname = $1", [name]);
    if (found.rowCount) return false;
    await client.query(`CREATE DATABASE "${name.replaceAll('"', '""')}"`);
    return true;
  } finally {
    await client.end();
  }
}

/** Runs pending migrations under an advisory lock, so instances that start together take turns. */
export async function runMigrations(url: string): Promise<string[]> {
  const dataSource = new DataSource(dataSourceOptions(url));
  await dataSource.initialize();
  const runner = dataSource.createQueryRunner();
  try {
    await runner.connect();
    await runner.query("SELECT pg_advisory_lock($1)", [MIGRATION_LOCK_ID]);
    const applied = await dataSource.runMigrations({ transaction: "each" });
    return applied.map((migration) => migration.name);
  } finally {
    await runner.query("SELECT pg_advisory_unlock($1)", [MIGRATION_LOCK_ID]).catch(() => undefined);
    await runner.release();
    await dataSource.destroy();
  }
}
