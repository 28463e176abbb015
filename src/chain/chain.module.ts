import { BullModule } from "@nestjs/bull";
import { Module } from "@nestjs/common";

import { ChainActionsRepository } from "./chain-actions.repository";
import { ChainClient } from "./chain-client";
import { CHAIN_WRITER_QUEUE, ChainWriterQueue } from "./chain-writer.queue";
import { LedgerService } from "./ledger/ledger.service";
import { PendingActionsSweeper } from "./pending-actions.sweeper";

/** The action ledger, the queue that feeds the chain writer, and the registry's whereabouts. */
@Module({
  imports: [BullModule.registerQueue({ name: CHAIN_WRITER_QUEUE })],
  providers: [ChainActionsRepository, ChainClient, ChainWriterQueue, LedgerService, PendingActionsSweeper],
  exports: [ChainActionsRepository, ChainClient, ChainWriterQueue, LedgerService, PendingActionsSweeper],
})
export class ChainModule {}
