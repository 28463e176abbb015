import { Module } from "@nestjs/common";

import { ChainActionsStore } from "./chain-actions.store";
import { LedgerService } from "./ledger.service";
import { OrganizationQueueStore } from "./organization-queue.store";

/**
 * The action ledger: what feature modules accept actions through and what the chain and the
 * callbacks read. It is told of accepted actions through AcceptedActionsNotifier, which the chain
 * module provides globally, so the ledger imports no consumer.
 */
@Module({
  providers: [LedgerService, ChainActionsStore, OrganizationQueueStore],
  exports: [LedgerService, ChainActionsStore],
})
export class LedgerModule {}
