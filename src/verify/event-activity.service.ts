import { Injectable } from "@nestjs/common";
import { getAddress } from "ethers";

import { TicketRegistry__factory } from "../../typechain-types";
import { ChainClient } from "../chain/chain-client";
import type { AppConfig } from "../config/app-config";
import { InjectConfig } from "../config/config.module";
import { custodyMaskOf } from "../registry";
import { emptyActivity, type EventActivity, tallyLogs } from "./event-activity";

/** Blocks per eth_getLogs call: many providers refuse wider ranges. */
export const LOG_RANGE_BLOCKS = 5_000;

/** The registry events an event page counts: one topic list, so one eth_getLogs per block range. */
const COUNTED = ["TicketSold", "TicketResold", "TicketsCheckedIn", "TicketsInvalidated", "Transfer", "EventUpdated", "EventCancelled"] as const;

/**
 * Tallies an event's activity from the registry's logs, from the event's registration block on, in
 * bounded block ranges. The tally up to the confirmed block (CONFIRMATIONS deep, or the finalized one)
 * is kept per event in memory and extended from where it stopped; the unconfirmed tail is read anew on
 * each page, so a reorganized block never stays counted.
 */
@Injectable()
export class EventActivityService {
  private readonly confirmed = new Map<bigint, EventActivity>();

  constructor(
    private readonly chain: ChainClient,
    @InjectConfig() private readonly config: AppConfig,
  ) {}

  async activity(event: { eventIndex: bigint; registeredBlock: number }, latestBlock: number): Promise<EventActivity> {
    const confirmedBlock = Math.max(event.registeredBlock - 1, Math.min(latestBlock, await this.confirmedBlock(latestBlock)));
    let kept = this.confirmed.get(event.eventIndex) ?? emptyActivity(event.registeredBlock - 1);
    if (kept.scannedTo < confirmedBlock) {
      kept = await this.scan(kept, confirmedBlock, event);
      this.confirmed.set(event.eventIndex, kept);
    }
    return kept.scannedTo < latestBlock ? this.scan(kept, latestBlock, event) : kept;
  }

  private async scan(from: EventActivity, toBlock: number, event: { eventIndex: bigint }): Promise<EventActivity> {
    const provider = await this.chain.connect();
    const address = getAddress(this.chain.registryAddress);
    const registry = TicketRegistry__factory.connect(address, provider);
    const custodyMask = custodyMaskOf(await this.chain.chainId(), address);
    const topics = [COUNTED.map((name) => registry.interface.getEvent(name).topicHash)];
    let tally = from;
    for (let start = from.scannedTo + 1; start <= toBlock; start += LOG_RANGE_BLOCKS) {
      const end = Math.min(toBlock, start + LOG_RANGE_BLOCKS - 1);
      const logs = await provider.getLogs({ address, topics, fromBlock: start, toBlock: end });
      tally = tallyLogs(tally, logs, end, { eventIndex: event.eventIndex, custodyMask }, registry.interface);
    }
    return tally;
  }

  private async confirmedBlock(latestBlock: number): Promise<number> {
    const confirmations = this.config.chain.confirmations;
    if (typeof confirmations === "number") return latestBlock - confirmations + 1;
    const finalized = await (await this.chain.connect()).getBlock("finalized");
    return finalized?.number ?? -1;
  }
}
