import { Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from "@nestjs/common";
import { InjectMetric } from "@willsoto/nestjs-prometheus";
import { formatEther, type JsonRpcProvider } from "ethers";
import type { Gauge } from "prom-client";

import type { AppConfig } from "../../../config/app-config";
import { InjectConfig } from "../../../config/config.module";
import { METRICS } from "../../../metrics/metric-definitions";
import { ChainClient } from "../../chain-client";
import { currentFees } from "../current-fees";
import { FUNDS_HORIZON_MS, fundsChanges, fundsNeeded, type SignerFunds } from "./signer-funds";
import { type SignerUsage, SignerUsageStore } from "./signer-usage.store";

export interface FundsReport {
  checkedAt: Date;
  maxFeePerGas: bigint;
  signers: SignerFunds[];
}

/**
 * Every SIGNER_FUNDS_CHECK_MS, reads each signer's balance and nonces from the chain and compares
 * the balance with what the next hour of batches needs at current fees (see fundsNeeded). Sets the
 * signer gauges, warns once when a signer falls short (and says when it is funded again), and
 * keeps the last report for SignerFundsIndicator.
 */
@Injectable()
export class SignerFundsMonitor implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(SignerFundsMonitor.name);
  private readonly addresses: string[];
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  private report: FundsReport | null = null;
  private failure: string | null = null;

  constructor(
    private readonly chain: ChainClient,
    private readonly usageStore: SignerUsageStore,
    @InjectConfig() private readonly config: AppConfig,
    @InjectMetric(METRICS.signerBalance.name) private readonly balanceGauge: Gauge<string>,
    @InjectMetric(METRICS.signerNonce.name) private readonly nonceGauge: Gauge<string>,
    @InjectMetric(METRICS.signerFundsNeeded.name) private readonly neededGauge: Gauge<string>,
  ) {
    this.addresses = chain.signers().map((wallet) => wallet.address);
  }

  onApplicationBootstrap(): void {
    if (this.chain.configured && this.addresses.length > 0) this.schedule(0);
  }

  onApplicationShutdown(): void {
    this.stopped = true;
    clearTimeout(this.timer);
  }

  /** The last successful check (null before the first), and why the latest check failed if it did. */
  get state(): { report: FundsReport | null; failure: string | null } {
    return { report: this.report, failure: this.failure };
  }

  /** One check of every signer; exposed for tests. */
  async check(): Promise<FundsReport> {
    const provider = await this.chain.connect();
    // The chain before the ledger: the writer records a nonce before it sends it, so a ledger read after
    // the chain is never behind it for the service's own transactions (ledger_next < chain_latest would
    // wrongly say that someone else used the key).
    const [fees, onChain] = await Promise.all([
      currentFees(provider, this.config.chain.fees),
      Promise.all(this.addresses.map((address) => readOnChain(provider, address))),
    ]);
    const usage = await this.usageStore.usageSince(new Date(Date.now() - FUNDS_HORIZON_MS));
    const signers = onChain.map((signer) => this.fundsOf(signer, usage, fees.maxFeePerGas));
    const report = { checkedAt: new Date(), maxFeePerGas: fees.maxFeePerGas, signers };
    this.publish(report);
    return report;
  }

  private schedule(delay: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.check()
        .then(
          () => this.recovered(),
          (error: unknown) => this.failed(error as Error),
        )
        .finally(() => this.schedule(this.config.chain.funds.checkIntervalMs));
    }, delay);
  }

  private fundsOf(signer: SignerOnChain, usage: SignerUsage, maxFeePerGas: bigint): SignerFunds {
    const { address, balanceWei, chainLatest, chainPending } = signer;
    const gasLastHour = usage.gas.get(address) ?? 0n;
    const floorGas = BigInt(this.config.chain.writer.txGasCap);
    const neededWei = fundsNeeded({ gasLastHour, floorGas, maxFeePerGas, minimumWei: this.config.chain.funds.minimumWei });
    const nonces = { chainLatest, chainPending, ledgerNext: usage.nextNonces.get(address) ?? null };
    return { address, balanceWei, neededWei, gasLastHour, nonces, short: balanceWei < neededWei };
  }

  private publish(report: FundsReport): void {
    for (const signer of report.signers) {
      this.balanceGauge.set({ signer: signer.address }, Number(signer.balanceWei));
      this.neededGauge.set({ signer: signer.address }, Number(signer.neededWei));
      this.nonceGauge.set({ signer: signer.address, source: "chain_latest" }, signer.nonces.chainLatest);
      this.nonceGauge.set({ signer: signer.address, source: "chain_pending" }, signer.nonces.chainPending);
      if (signer.nonces.ledgerNext !== null) this.nonceGauge.set({ signer: signer.address, source: "ledger_next" }, signer.nonces.ledgerNext);
    }
    const bySigner = new Map(report.signers.map((signer) => [signer.address, signer]));
    for (const change of fundsChanges(this.report?.signers ?? null, report.signers))
      this.logChange(bySigner.get(change.address) as SignerFunds, report.maxFeePerGas);
    this.report = report;
  }

  private logChange(signer: SignerFunds, maxFeePerGas: bigint): void {
    const amounts = `balance ${formatEther(signer.balanceWei)}, next hour needs ${formatEther(signer.neededWei)} (${signer.gasLastHour} gas used in the last hour, at least one full batch, at ${maxFeePerGas} wei/gas)`;
    if (signer.short) this.logger.warn(`signer ${signer.address} is short of funds: ${amounts}; fund it before its batches stop`);
    else this.logger.log(`signer ${signer.address} is funded again: ${amounts}`);
  }

  private failed(error: Error): void {
    if (this.failure === null) this.logger.warn(`signer funds check failed, retrying every ${this.config.chain.funds.checkIntervalMs} ms: ${error.message}`);
    this.failure = error.message;
  }

  private recovered(): void {
    if (this.failure !== null) this.logger.log("signer funds check works again");
    this.failure = null;
  }
}

interface SignerOnChain {
  address: string;
  balanceWei: bigint;
  chainLatest: number;
  chainPending: number;
}

async function readOnChain(provider: JsonRpcProvider, address: string): Promise<SignerOnChain> {
  const [balanceWei, chainLatest, chainPending] = await Promise.all([
    provider.getBalance(address, "latest"),
    provider.getTransactionCount(address, "latest"),
    provider.getTransactionCount(address, "pending"),
  ]);
  return { address, balanceWei, chainLatest, chainPending };
}
