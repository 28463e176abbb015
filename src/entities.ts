import { ApiKey } from "./auth/entities/api-key.entity";
import { Organization } from "./auth/entities/organization.entity";
import { WebhookEndpoint } from "./callbacks/webhooks/entities/webhook-endpoint.entity";
import { EventEntity } from "./events/entities/event.entity";
import { HolderProofChallenge } from "./holder-proofs/entities/holder-proof-challenge.entity";
import { ChainAction } from "./ledger/entities/chain-action.entity";
import { TicketEntity } from "./tickets/entities/ticket.entity";

/** Every module's TypeORM entities, for the one data source of the process. */
export const ENTITIES = [Organization, ApiKey, EventEntity, TicketEntity, ChainAction, WebhookEndpoint, HolderProofChallenge];
