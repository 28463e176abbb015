import { Module } from "@nestjs/common";

import { LedgerModule } from "../ledger/ledger.module";
import { ChainClient } from "./chain-client";
import { ChainWriterQueueModule } from "./queue/chain-writer-queue.module";
import { PendingActionsSweeper } from "./queue/pending-actions.sweeper";

/** The registry's whereabouts and the connection to it, and the sweep that keeps the writer's queue fed. */
@Module({
  imports: [LedgerModule, ChainWriterQueueModule],
  providers: [ChainClient, PendingActionsSweeper],
  exports: [ChainClient, PendingActionsSweeper, LedgerModule],
})
export class ChainModule {}
