import type { DataSourceOptions } from "typeorm";

import { ApiKey } from "../auth/entities/api-key.entity";
import { Organization } from "../auth/entities/organization.entity";
import { ChainAction } from "../chain/entities/chain-action.entity";
import { EventEntity } from "../events/entities/event.entity";
import { TicketEntity } from "../tickets/entities/ticket.entity";
import { InitialSchema1763740000000 } from "./migrations/1763740000000-InitialSchema";
import { ChainPipeline1763750000000 } from "./migrations/1763750000000-ChainPipeline";
import { CallbackDelivery1763760000000 } from "./migrations/1763760000000-CallbackDelivery";

export const ENTITIES = [Organization, ApiKey, EventEntity, TicketEntity, ChainAction];
export const MIGRATIONS = [InitialSchema1763740000000, ChainPipeline1763750000000, CallbackDelivery1763760000000];

/** Migrations are the only way the schema changes: never `synchronize`. */
export function dataSourceOptions(url: string): DataSourceOptions {
  return {
    type: "postgres",
    url,
    entities: ENTITIES,
    migrations: MIGRATIONS,
    migrationsTableName: "schema_migrations",
    synchronize: false,
    extra: { max: 20 },
  };
}
