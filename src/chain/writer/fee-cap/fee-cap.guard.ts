import { Injectable, Logger } from "@nestjs/common";
import { InjectMetric } from "@willsoto/nestjs-prometheus";
import { formatUnits, type JsonRpcProvider } from "ethers";
import type { Gauge } from "prom-client";

import type { AppConfig } from "../../../config/app-config";
import { InjectConfig } from "../../../config/config.module";
import { METRICS } from "../../../metrics/metric-definitions";
import { ChainWriterQueue } from "../../queue/chain-writer.queue";
import { type FeeQuote, type Fees, quoteFees } from "../current-fees";

/** How soon a writer held by the cap looks at the fees again. */
const RECHECK_MS = 2_000;

export interface FeeCapState {
  /** Null before the first quote. */
  checkedAt: Date | null;
  quote: FeeQuote | null;
  /** Since when the fees have been over the cap; null while they are not. */
  overCapSince: Date | null;
}

/**
 * MAX_FEE_PER_GAS_GWEI at the writer's door: every flush asks for its fees here. While the base fee
 * plus the tip exceeds the cap it gets none and sends nothing; the guard warns once, sets
 * chain_fees_over_cap, and wakes the writer every few seconds until fees are back under the cap,
 * when sending resumes by itself. The state is what FeeCapIndicator reports.
 */
@Injectable()
export class FeeCapGuard {
  private readonly logger = new Logger(FeeCapGuard.name);
  private current: FeeCapState = { checkedAt: null, quote: null, overCapSince: null };
  private nextRecheckAt = 0;

  constructor(
    private readonly queue: ChainWriterQueue,
    @InjectConfig() private readonly config: AppConfig,
    @InjectMetric(METRICS.feesOverCap.name) private readonly overCapGauge: Gauge<string>,
    @InjectMetric(METRICS.feesNeeded.name) private readonly neededGauge: Gauge<string>,
  ) {}

  get cap(): bigint | null {
    return this.config.chain.fees.maxFeePerGasWei;
  }

  get state(): FeeCapState {
    return this.current;
  }

  /** The fees to send with now, or null while they are over the cap (and a later flush is arranged). */
  async fees(provider: JsonRpcProvider): Promise<Fees | null> {
    const quote = await quoteFees(provider, this.config.chain.fees);
    const wasOver = this.current.overCapSince;
    this.current = { checkedAt: new Date(), quote, overCapSince: quote.overCap ? (wasOver ?? new Date()) : null };
    this.neededGauge.set(Number(quote.neededPerGas));
    this.overCapGauge.set(quote.overCap ? 1 : 0);
    if (quote.overCap) {
      if (!wasOver) this.logger.warn(`${describeOverCap(quote, this.cap as bigint)}: the writer holds its batches until fees drop`);
      await this.recheckLater();
      return null;
    }
    if (wasOver) this.logger.log(`fees are under MAX_FEE_PER_GAS_GWEI again (${gwei(quote.neededPerGas)} gwei needed): sending resumes`);
    return { maxFeePerGas: quote.maxFeePerGas, maxPriorityFeePerGas: quote.maxPriorityFeePerGas };
  }

  /** One delayed flush of every signer per RECHECK_MS, however many flushes were held. */
  private async recheckLater(): Promise<void> {
    if (Date.now() < this.nextRecheckAt) return;
    this.nextRecheckAt = Date.now() + RECHECK_MS;
    await this.queue.requestFlush("fees", undefined, RECHECK_MS);
  }
}

export function describeOverCap(quote: FeeQuote, cap: bigint): string {
  return (
    `fees over MAX_FEE_PER_GAS_GWEI: a transaction needs ${gwei(quote.neededPerGas)} gwei/gas ` +
    `(base fee ${gwei(quote.baseFeePerGas)} + tip ${gwei(quote.maxPriorityFeePerGas)}), the cap is ${gwei(cap)}`
  );
}

function gwei(wei: bigint): string {
  return formatUnits(wei, "gwei");
}
