import { Module } from "@nestjs/common";
import { TerminusModule } from "@nestjs/terminus";

import { ChainModule } from "../chain.module";
import { ChainWriterProcessor } from "../queue/chain-writer.processor";
import { LedgerBinding } from "./binding/ledger-binding";
import { LedgerBindingIndicator } from "./binding/ledger-binding.indicator";
import { LedgerBindingStore } from "./binding/ledger-binding.store";
import { FeeBumper } from "./receipts/fee-bumper";
import { FinalizationStore } from "./receipts/finalization.store";
import { FeeCapGuard } from "./fee-cap/fee-cap.guard";
import { FeeCapIndicator } from "./fee-cap/fee-cap.indicator";
import { SignerProgress } from "./progress/signer-progress";
import { SignerProgressIndicator } from "./progress/signer-progress.indicator";
import { ReceiptWatcher } from "./receipts/receipt-watcher";
import { ReconcileStore } from "./reconcile/reconcile.store";
import { SignerNonceGuard } from "./reconcile/signer-nonce-guard";
import { SignerReconciler } from "./reconcile/signer-reconciler";
import { SignerStopIndicator } from "./reconcile/signer-stop.indicator";
import { SignerStopsStore } from "./reconcile/signer-stops.store";
import { ReceiptsStore } from "./receipts/receipts.store";
import { TransactionFinalizer } from "./receipts/transaction-finalizer";
import { LearnedLimits } from "./refusals/learned-limits";
import { RefusalResponder } from "./refusals/refusal-responder";
import { RefusalsStore } from "./refusals/refusals.store";
import { BroadcastOrder } from "./sending/broadcast-order";
import { ChainWriter } from "./sending/chain-writer";
import { CrashPoints } from "./sending/crash-points";
import { SendingStore } from "./sending/sending.store";
import { FundsGate } from "./signer-funds/funds-gate";
import { SignerFundsIndicator } from "./signer-funds/signer-funds.indicator";
import { SignerFundsMonitor } from "./signer-funds/signer-funds.monitor";
import { SignerUsageStore } from "./signer-funds/signer-usage.store";
import { SignerLocks } from "./signer-locks";
import { WriterMetrics } from "./writer-metrics";

/** The worker side of the chain: processes flush jobs, watches receipts and the signers' funds. No controllers. */
@Module({
  imports: [ChainModule, TerminusModule],
  providers: [
    SendingStore,
    ReceiptsStore,
    FinalizationStore,
    SignerUsageStore,
    TransactionFinalizer,
    SignerLocks,
    CrashPoints,
    ChainWriter,
    ReceiptWatcher,
    ChainWriterProcessor,
    WriterMetrics,
    SignerFundsMonitor,
    SignerFundsIndicator,
    FeeCapGuard,
    FeeCapIndicator,
    SignerProgress,
    SignerProgressIndicator,
    RefusalsStore,
    LearnedLimits,
    FundsGate,
    FeeBumper,
    RefusalResponder,
    BroadcastOrder,
    SignerStopsStore,
    SignerNonceGuard,
    SignerStopIndicator,
    ReconcileStore,
    SignerReconciler,
    LedgerBindingStore,
    LedgerBinding,
    LedgerBindingIndicator,
  ],
  exports: [
    ChainWriter,
    ReceiptWatcher,
    SignerFundsIndicator,
    FeeCapIndicator,
    SignerProgressIndicator,
    SignerStopIndicator,
    SignerReconciler,
    LedgerBindingIndicator,
  ],
})
export class ChainWriterModule {}
