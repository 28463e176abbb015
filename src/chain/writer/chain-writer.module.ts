import { Module } from "@nestjs/common";
import { TerminusModule } from "@nestjs/terminus";

import { ChainModule } from "../chain.module";
import { ChainWriterProcessor } from "../queue/chain-writer.processor";
import { LedgerBinding } from "./binding/ledger-binding";
import { LedgerBindingIndicator } from "./binding/ledger-binding.indicator";
import { LedgerBindingStore } from "./binding/ledger-binding.store";
import { BROADCAST_OBSERVER } from "./broadcast/broadcast";
import { BroadcastOrder } from "./broadcast/broadcast-order";
import { BroadcastStore } from "./broadcast/broadcast.store";
import { RetryBackOff } from "./broadcast/retry-back-off";
import { TransactionSender } from "./broadcast/transaction-sender";
import { UnsentNonces } from "./broadcast/unsent-nonces";
import { FeeBumper } from "./fee-bump/fee-bumper";
import { FeeCapGuard } from "./fee-cap/fee-cap.guard";
import { FeeCapIndicator } from "./fee-cap/fee-cap.indicator";
import { SignerProgress } from "./progress/signer-progress";
import { SignerProgressIndicator } from "./progress/signer-progress.indicator";
import { Confirmations } from "./receipts/confirmations";
import { FinalizationStore } from "./receipts/finalization.store";
import { LostTransactions } from "./receipts/lost-transactions";
import { ReceiptWatcher } from "./receipts/receipt-watcher";
import { ReceiptsStore } from "./receipts/receipts.store";
import { Resender } from "./receipts/resender";
import { SignerWatch } from "./receipts/signer-watch";
import { TransactionFinalizer } from "./receipts/transaction-finalizer";
import { RegistrySubjectFacts } from "./restore/registry-subject-facts";
import { UnminedNonces } from "./receipts/unmined-nonces";
import { ReconcileStore } from "./reconcile/reconcile.store";
import { SignerNonceGuard } from "./reconcile/signer-nonce-guard";
import { SignerReconciler } from "./reconcile/signer-reconciler";
import { SignerStopIndicator } from "./reconcile/signer-stop.indicator";
import { SignerStopsStore } from "./reconcile/signer-stops.store";
import { LearnedLimits } from "./refusals/learned-limits";
import { NonceTakeBack } from "./refusals/nonce-take-back";
import { RefusalResponder } from "./refusals/refusal-responder";
import { RefusalsStore } from "./refusals/refusals.store";
import { TakenNonces } from "./refusals/taken-nonces";
import { BatchReader } from "./sending/batch-reader";
import { BatchSender } from "./sending/batch-sender";
import { ChainWriter } from "./sending/chain-writer";
import { CrashPoints } from "./sending/crash-points";
import { FlushGates } from "./sending/flush-gates";
import { SendingStore } from "./sending/sending.store";
import { UnsendableActions } from "./sending/unsendable-actions";
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
    // Sending: the flush, its gates, its batches.
    SendingStore,
    ChainWriter,
    FlushGates,
    BatchReader,
    BatchSender,
    UnsendableActions,
    CrashPoints,
    ChainWriterProcessor,
    // The one sender of signed transactions, which sending and receipts share.
    BroadcastStore,
    BroadcastOrder,
    TransactionSender,
    RetryBackOff,
    UnsentNonces,
    { provide: BROADCAST_OBSERVER, useExisting: SignerProgress },
    FeeBumper,
    // Receipts: one pass per signer, its mined and unmined nonces.
    ReceiptsStore,
    FinalizationStore,
    TransactionFinalizer,
    RegistrySubjectFacts,
    ReceiptWatcher,
    SignerWatch,
    Confirmations,
    UnminedNonces,
    LostTransactions,
    Resender,
    // Refusals: the answer to each, the limits a node taught, nonces taken back or given up.
    RefusalsStore,
    RefusalResponder,
    LearnedLimits,
    NonceTakeBack,
    TakenNonces,
    // Funds, fees, progress, signer stops, the ledger's binding.
    SignerUsageStore,
    SignerFundsMonitor,
    SignerFundsIndicator,
    FundsGate,
    FeeCapGuard,
    FeeCapIndicator,
    SignerProgress,
    SignerProgressIndicator,
    SignerStopsStore,
    SignerNonceGuard,
    SignerStopIndicator,
    ReconcileStore,
    SignerReconciler,
    LedgerBindingStore,
    LedgerBinding,
    LedgerBindingIndicator,
    SignerLocks,
    WriterMetrics,
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
