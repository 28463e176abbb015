import { randomBytes } from "node:crypto";

import { Client } from "pg";

/** A database the caller created and drops when done. */
export interface Database {
  name: string;
  url: string;
  drop: () => Promise<void>;
}

/**
 * A fresh, empty database on the server at `serverUrl` (`postgres://user@host:port`), named
 * `<prefix>_<random>`, so that its name says what it serves; the service migrates it at boot.
 */
export async function createThrowawayDatabase(serverUrl: string, prefix: string): Promise<Database> {
  const name = `${prefix}_${randomBytes(4).toString("hex")}`;
  const url = `${serverUrl}/${name}`;
  await createDatabase(url);
  return { name, url, drop: () => dropDatabase(url) };
}

/** Creates the database `databaseUrl` names, on its server: empty, or a copy of the database `template`. */
export async function createDatabase(databaseUrl: string, template?: string): Promise<void> {
  const copied = template === undefined ? "" : ` TEMPLATE ${quoted(template)}`;
  await onServer(databaseUrl, `CREATE DATABASE ${quotedName(databaseUrl)}${copied}`);
}

/** Drops the database `databaseUrl` names, if it exists, its connections cut. */
export async function dropDatabase(databaseUrl: string): Promise<void> {
  await onServer(databaseUrl, `DROP DATABASE IF EXISTS ${quotedName(databaseUrl)} WITH (FORCE)`);
}

export function databaseNameOf(databaseUrl: string): string {
  return decodeURIComponent(new URL(databaseUrl).pathname.replace(/^\//, ""));
}

function quotedName(databaseUrl: string): string {
  return quoted(databaseNameOf(databaseUrl));
}

function quoted(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/** Runs `sql` in the server's `postgres` database: the one a database is created and dropped from. */
async function onServer(databaseUrl: string, sql: string): Promise<void> {
  const server = new URL(databaseUrl);
  server.pathname = "/postgres";
  const client = new Client({ connectionString: server.toString() });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}
