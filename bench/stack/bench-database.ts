import { createThrowawayDatabase, type Database } from "../../scripts/stack/database";

const SERVER_URL = process.env.BENCH_DATABASE_SERVER_URL ?? "postgres://postgres@127.0.0.1:5432";

/** A fresh, empty database named for what it serves (`ticket_registry_<purpose>_…`); the service migrates it. */
export function createBenchDatabase(purpose: "bench" | "soak"): Promise<Database> {
  return createThrowawayDatabase(SERVER_URL, `ticket_registry_${purpose}`);
}
