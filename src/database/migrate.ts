import { ConfigError, loadConfig } from "../config/app-config";
import { createDatabaseIfMissing, runMigrations } from "./prepare-database";

/**
 * `npm run migration:run` (or `node dist/src/database/migrate.js` in the image): applies pending
 * migrations under the same advisory lock as the instances that migrate at boot, so it is safe to
 * run while they start.
 */
async function main(): Promise<void> {
  const config = loadConfig();
  if (config.database.createIfMissing && (await createDatabaseIfMissing(config.database.url))) console.log("created the database named in DATABASE_URL");
  const applied = await runMigrations(config.database.url);
  console.log(applied.length > 0 ? `applied migrations: ${applied.join(", ")}` : "no pending migrations");
}

main().catch((error: unknown) => {
  console.error(error instanceof ConfigError ? error.message : error);
  process.exit(1);
});
