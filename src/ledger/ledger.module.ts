import { Module } from "@nestjs/common";

import { ChainActionsStore } from "./chain-actions.store";
import { LedgerService } from "./ledger.service";

/**
 * The action ledger: what feature modules accept actions through and what the chain and the
 * callbacks read. It is told of accepted actions through AcceptedActionsNotifier, which the chain
 * module provides globally, so the ledger imports no consumer.
 */
@Module({
  providers: [LedgerService, ChainActionsStore],
  exports: [LedgerService, ChainActionsStore],
})
export class LedgerModule {}
