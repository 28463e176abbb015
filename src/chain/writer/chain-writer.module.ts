import { Module } from "@nestjs/common";
import { TerminusModule } from "@nestjs/terminus";

import { ChainModule } from "../chain.module";
import { ChainWriter } from "./chain-writer.service";
import { ChainWriterProcessor } from "./chain-writer.processor";
import { CrashPoints } from "./crash-points";
import { ReceiptWatcher } from "./receipt-watcher.service";
import { SignerFundsIndicator } from "./signer-funds.indicator";
import { SignerFundsMonitor } from "./signer-funds.monitor";
import { SignerLocks } from "./signer-locks";
import { TransactionFinalizer } from "./transaction-finalizer";
import { WriterMetrics } from "./writer-metrics";
import { WriterStore } from "./writer-store";

/** The worker side of the chain: processes flush jobs, watches receipts and the signers' funds. No controllers. */
@Module({
  imports: [ChainModule, TerminusModule],
  providers: [WriterStore, TransactionFinalizer, SignerLocks, CrashPoints, ChainWriter, ReceiptWatcher, ChainWriterProcessor, WriterMetrics, SignerFundsMonitor, SignerFundsIndicator],
  exports: [ChainWriter, ReceiptWatcher, SignerFundsIndicator],
})
export class ChainWriterModule {}
