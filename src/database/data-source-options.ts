import type { DataSourceOptions } from "typeorm";

import { InitialSchema1763740000000 } from "./migrations/1763740000000-InitialSchema";
import { ChainPipeline1763750000000 } from "./migrations/1763750000000-ChainPipeline";
import { CallbackDelivery1763760000000 } from "./migrations/1763760000000-CallbackDelivery";
import { ActionBlockHash1763770000000 } from "./migrations/1763770000000-ActionBlockHash";

export const MIGRATIONS = [InitialSchema1763740000000, ChainPipeline1763750000000, CallbackDelivery1763760000000, ActionBlockHash1763770000000];

/**
 * Migrations are the only way the schema changes: never `synchronize`. The entities are the
 * feature modules'; the composition root (src/entities.ts) lists them, so this module imports none.
 */
export function dataSourceOptions(url: string, entities: NonNullable<DataSourceOptions["entities"]> = []): DataSourceOptions {
  return {
    type: "postgres",
    url,
    entities,
    migrations: MIGRATIONS,
    migrationsTableName: "schema_migrations",
    synchronize: false,
    extra: { max: 20 },
  };
}
