import { Module } from "@nestjs/common";

import { ChainModule } from "../chain.module";
import { ChainWriter } from "./chain-writer.service";
import { ChainWriterProcessor } from "./chain-writer.processor";
import { CrashPoints } from "./crash-points";
import { ReceiptWatcher } from "./receipt-watcher.service";
import { SignerLocks } from "./signer-locks";
import { TransactionFinalizer } from "./transaction-finalizer";
import { WriterStore } from "./writer-store";

/** The worker side of the chain: processes flush jobs and watches receipts. No controllers. */
@Module({
  imports: [ChainModule],
  providers: [WriterStore, TransactionFinalizer, SignerLocks, CrashPoints, ChainWriter, ReceiptWatcher, ChainWriterProcessor],
  exports: [ChainWriter, ReceiptWatcher],
})
export class ChainWriterModule {}
