import type { DataSourceOptions } from "typeorm";

import { InitialSchema1763740000000 } from "./migrations/1763740000000-InitialSchema";
import { ChainPipeline1763750000000 } from "./migrations/1763750000000-ChainPipeline";
import { CallbackDelivery1763760000000 } from "./migrations/1763760000000-CallbackDelivery";
import { ActionBlockHash1763770000000 } from "./migrations/1763770000000-ActionBlockHash";
import { WaitingFunds1763780000000 } from "./migrations/1763780000000-WaitingFunds";
import { IdempotencyKeys1763790000000 } from "./migrations/1763790000000-IdempotencyKeys";
import { ActionChanges1763800000000 } from "./migrations/1763800000000-ActionChanges";
import { SerialReservations1763810000000 } from "./migrations/1763810000000-SerialReservations";
import { EventSales1763820000000 } from "./migrations/1763820000000-EventSales";
import { EventIndexLimit1763830000000 } from "./migrations/1763830000000-EventIndexLimit";
import { TokenTransfers1763840000000 } from "./migrations/1763840000000-TokenTransfers";
import { LedgerBinding1763850000000 } from "./migrations/1763850000000-LedgerBinding";
import { SignerStops1763860000000 } from "./migrations/1763860000000-SignerStops";
import { CallbackReceivers1763870000000 } from "./migrations/1763870000000-CallbackReceivers";
import { ReleasedTickets1763885000000 } from "./migrations/1763885000000-ReleasedTickets";
import { IdempotencyKeysPerOrganization1763886000000 } from "./migrations/1763886000000-IdempotencyKeysPerOrganization";
import { CancelledActions1763887000000 } from "./migrations/1763887000000-CancelledActions";
import { WaitingByOrganization1763888000000 } from "./migrations/1763888000000-WaitingByOrganization";
import { OrganizationQueues1763889000000 } from "./migrations/1763889000000-OrganizationQueues";
import { KeyScopes1763890000000 } from "./migrations/1763890000000-KeyScopes";
import { UsageEntries1763891000000 } from "./migrations/1763891000000-UsageEntries";
import { WebhookEndpoints1763892000000 } from "./migrations/1763892000000-WebhookEndpoints";
import { CancelledEvents1763893000000 } from "./migrations/1763893000000-CancelledEvents";
import { RichMetadata1763894000000 } from "./migrations/1763894000000-RichMetadata";
import { HolderProofChallenges1763895000000 } from "./migrations/1763895000000-HolderProofChallenges";
import { Retention1763897000000 } from "./migrations/1763897000000-Retention";
import { DeliveredCallbacksDeleted1763898000000 } from "./migrations/1763898000000-DeliveredCallbacksDeleted";
import { PendingActionsByTransaction1763899000000 } from "./migrations/1763899000000-PendingActionsByTransaction";

export const MIGRATIONS = [
  InitialSchema1763740000000,
  ChainPipeline1763750000000,
  CallbackDelivery1763760000000,
  ActionBlockHash1763770000000,
  WaitingFunds1763780000000,
  IdempotencyKeys1763790000000,
  ActionChanges1763800000000,
  SerialReservations1763810000000,
  EventSales1763820000000,
  EventIndexLimit1763830000000,
  TokenTransfers1763840000000,
  LedgerBinding1763850000000,
  SignerStops1763860000000,
  CallbackReceivers1763870000000,
  ReleasedTickets1763885000000,
  IdempotencyKeysPerOrganization1763886000000,
  CancelledActions1763887000000,
  WaitingByOrganization1763888000000,
  OrganizationQueues1763889000000,
  KeyScopes1763890000000,
  UsageEntries1763891000000,
  WebhookEndpoints1763892000000,
  CancelledEvents1763893000000,
  RichMetadata1763894000000,
  HolderProofChallenges1763895000000,
  Retention1763897000000,
  DeliveredCallbacksDeleted1763898000000,
  PendingActionsByTransaction1763899000000,
];

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
    // A server that does not answer (a network cut rather than a refusal) fails a checkout after 10 s: a 503, not a hung request.
    extra: { max: 20, connectionTimeoutMillis: 10_000 },
  };
}
