import { Module } from "@nestjs/common";

import { ChainActionsRepository } from "./chain-actions.repository";
import { LedgerService } from "./ledger.service";

/**
 * The action ledger: what feature modules accept actions through and what the chain and the
 * callbacks read. It is told of accepted actions through AcceptedActionsNotifier, which the chain
 * module provides globally, so the ledger imports no consumer.
 */
@Module({
  providers: [LedgerService, ChainActionsRepository],
  exports: [LedgerService, ChainActionsRepository],
})
export class LedgerModule {}
