import { DataSource } from "typeorm";

import { dataSourceOptions } from "../../src/database/data-source-options";
import { ENTITIES } from "../../src/entities";
import { createTestDatabase } from "./test-database";

export interface StoreDatabase {
  dataSource: DataSource;
  /** Inserts an organization row and returns its id. */
  organization: (ticketeerId: string) => Promise<string>;
  close: () => Promise<void>;
}

/**
 * A fresh, migrated database of the test file's own and a data source over it: for the store
 * specs, which test the SQL of one store against real PostgreSQL without the application.
 */
export async function openStoreDatabase(): Promise<StoreDatabase> {
  const database = await createTestDatabase();
  const dataSource = await new DataSource(dataSourceOptions(database.url, ENTITIES)).initialize();
  return {
    dataSource,
    organization: async (ticketeerId) => {
      const [row] = await dataSource.query<{ id: string }[]>(`INSERT INTO organizations (ticketeer_id, name) VALUES ($1, $1) RETURNING id`, [ticketeerId]);
      return row.id;
    },
    close: async () => {
      await dataSource.destroy();
      await database.drop();
    },
  };
}
