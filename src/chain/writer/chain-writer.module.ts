import { Module } from "@nestjs/common";
import { TerminusModule } from "@nestjs/terminus";

import { ChainModule } from "../chain.module";
import { ChainWriterProcessor } from "../queue/chain-writer.processor";
import { ReceiptWatcher } from "./receipts/receipt-watcher.service";
import { TransactionFinalizer } from "./receipts/transaction-finalizer";
import { ChainWriter } from "./sending/chain-writer.service";
import { CrashPoints } from "./sending/crash-points";
import { SignerFundsIndicator } from "./signer-funds/signer-funds.indicator";
import { SignerFundsMonitor } from "./signer-funds/signer-funds.monitor";
import { SignerLocks } from "./signer-locks";
import { WriterMetrics } from "./writer-metrics";
import { WriterStore } from "./writer-store";

/** The worker side of the chain: processes flush jobs, watches receipts and the signers' funds. No controllers. */
@Module({
  imports: [ChainModule, TerminusModule],
  providers: [WriterStore, TransactionFinalizer, SignerLocks, CrashPoints, ChainWriter, ReceiptWatcher, ChainWriterProcessor, WriterMetrics, SignerFundsMonitor, SignerFundsIndicator],
  exports: [ChainWriter, ReceiptWatcher, SignerFundsIndicator],
})
export class ChainWriterModule {}
