import { BullModule } from "@nestjs/bull";
import { Global, Module } from "@nestjs/common";

import { AcceptedActionsNotifier } from "../../ledger/accepted-actions.notifier";
import { CHAIN_WRITER_QUEUE, ChainWriterQueue } from "./chain-writer.queue";

/**
 * The chain writer's queue, producer side. Global because the ledger is told of accepted actions
 * through it (as AcceptedActionsNotifier) without importing the chain module.
 */
@Global()
@Module({
  imports: [BullModule.registerQueue({ name: CHAIN_WRITER_QUEUE })],
  providers: [ChainWriterQueue, { provide: AcceptedActionsNotifier, useExisting: ChainWriterQueue }],
  exports: [ChainWriterQueue, AcceptedActionsNotifier],
})
export class ChainWriterQueueModule {}
