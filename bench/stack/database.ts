import { randomBytes } from "node:crypto";

import { Client } from "pg";

const SERVER_URL = process.env.BENCH_DATABASE_SERVER_URL ?? "postgres://postgres@127.0.0.1:5432";

export interface Database {
  name: string;
  url: string;
  drop: () => Promise<void>;
}

/** A fresh, empty database named for what it serves (`ticket_registry_<purpose>_…`); the service migrates it. */
export async function createDatabase(purpose: "bench" | "soak"): Promise<Database> {
  const name = `ticket_registry_${purpose}_${randomBytes(4).toString("hex")}`;
  await admin(`CREATE DATABASE ${name}`);
  return { name, url: `${SERVER_URL}/${name}`, drop: () => admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) };
}

async function admin(sql: string): Promise<void> {
  const client = new Client({ connectionString: `${SERVER_URL}/postgres` });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}
