import { Injectable } from "@nestjs/common";
import { getAddress, type JsonRpcProvider, type Log, toBeHex, ZeroAddress, zeroPadValue } from "ethers";

import { TicketRegistry__factory } from "../../../typechain-types";
import { ChainClient } from "../../chain/chain-client";
import type { AppConfig } from "../../config/app-config";
import { InjectConfig } from "../../config/config.module";
import { eventDetailsOf, type RegistryEventDetailsLog } from "../../registry";
import type { EventFacts } from "./token-facts";

/** The registry's view of one ticket, as `tickets(ids)` answers it; a zero holder: never minted. */
export interface TicketOnChain {
  tokenId: bigint;
  minted: boolean;
  checkedIn: boolean;
  invalidated: boolean;
  claimed: boolean;
  /** Its event is cancelled: the registry reads every one of its tickets as void. */
  eventCancelled: boolean;
  resales: number;
}

/**
 * The registry reads behind token metadata, each one call to the node however many tokens it covers:
 * the tickets() view of many tokens, the last sale or resale log of many tokens (their tokenIds as one
 * topic list), and an event's registration and updates. Logs are read from REGISTRY_FROM_BLOCK, views
 * and logs as of the block given, so that they agree with each other.
 */
@Injectable()
export class RegistryReads {
  constructor(
    private readonly chain: ChainClient,
    @InjectConfig() private readonly config: AppConfig,
  ) {}

  async tickets(tokenIds: readonly bigint[], blockNumber: number): Promise<TicketOnChain[]> {
    const provider = await this.chain.connect();
    const registry = TicketRegistry__factory.connect(this.chain.registryAddress, provider);
    const views = await registry.tickets([...tokenIds], { blockTag: blockNumber });
    return views.map((view, i) => ({
      tokenId: tokenIds[i],
      minted: getAddress(view.holder) !== ZeroAddress,
      checkedIn: view.checkedIn,
      invalidated: view.invalidated,
      claimed: view.claimed,
      eventCancelled: view.eventCancelled,
      resales: Number(view.resales),
    }));
  }

  /** tokenId → the price of its last TicketSold or TicketResold log up to `blockNumber` (the registry's fixed point). */
  async lastPrices(tokenIds: readonly bigint[], blockNumber: number): Promise<Map<bigint, bigint>> {
    const prices = new Map<bigint, bigint>();
    if (tokenIds.length === 0) return prices;
    const registry = this.chain.registry;
    const logs = await this.logs(
      [(["TicketSold", "TicketResold"] as const).map((name) => registry.getEvent(name).topicHash), tokenIds.map(topicOf)],
      blockNumber,
    );
    // Logs come in chain order: the last one of a token is its latest price.
    for (const log of logs) {
      const parsed = registry.parseLog(log);
      if (parsed) prices.set(parsed.args.tokenId as bigint, parsed.args.price as bigint);
    }
    return prices;
  }

  /** The event's details as its last EventRegistered or EventUpdated log up to `blockNumber` records them; null if none. */
  async eventDetails(eventIndex: bigint, blockNumber: number): Promise<EventFacts | null> {
    const registry = this.chain.registry;
    const logs = await this.logs(
      [(["EventRegistered", "EventUpdated"] as const).map((name) => registry.getEvent(name).topicHash), [topicOf(eventIndex)]],
      blockNumber,
    );
    const last = logs.at(-1);
    const parsed = last ? registry.parseLog(last) : null;
    return parsed ? eventDetailsOf(parsed.args.details as RegistryEventDetailsLog) : null;
  }

  private async logs(topics: string[][], blockNumber: number): Promise<Log[]> {
    const provider: JsonRpcProvider = await this.chain.connect();
    return provider.getLogs({ address: this.chain.registryAddress, topics, fromBlock: this.config.chain.fromBlock, toBlock: blockNumber });
  }
}

function topicOf(value: bigint): string {
  return zeroPadValue(toBeHex(value), 32);
}
