import { Injectable, Logger, type OnModuleDestroy, type OnModuleInit } from "@nestjs/common";
import { type JsonRpcProvider, toQuantity } from "ethers";

import { ChainClient } from "../../chain/chain-client";
import type { AppConfig } from "../../config/app-config";
import { InjectConfig } from "../../config/config.module";
import { ActionChangesListener } from "../../ledger/live/action-changes.listener";

/** A block of the chain: the token metadata is read as of one. */
export interface ChainHead {
  number: number;
  hash: string;
}

/** What changed between two heads, as the registry's logs announce it. */
export interface HeadChanges {
  /** [from, to] of each ERC-4906 signal: BatchMetadataUpdate, or MetadataUpdate as [id, id]. */
  tokenRanges: [bigint, bigint][];
  /** Events whose details an EventUpdated log replaced. */
  updatedEvents: bigint[];
  /** Events an EventRegistered log registered. */
  registeredEvents: bigint[];
  /** Nothing read before can be trusted: a reorg, a gap too long to read, the node behind. */
  reset: boolean;
}

const RESET: HeadChanges = { tokenRanges: [], updatedEvents: [], registeredEvents: [], reset: true };

/** A head older than this many blocks is not caught up log by log: everything is read again instead. */
const MAX_BLOCKS_CAUGHT_UP = 5_000;

/** The least time between two looks that a change in the ledger asks for (every accepted request notifies). */
const MIN_LOOK_INTERVAL_MS = 100;

interface RawBlock {
  number: string;
  hash: string;
}

/**
 * The latest block the token metadata is read at, and what changed since the last one. A look costs one
 * call (the latest block) when nothing moved, three when blocks came (their ERC-4906, EventUpdated and
 * EventRegistered logs, and the previous head again, which must still be on the chain). Looks happen only when a request
 * asks for the head and it is older than METADATA_HEAD_MAX_AGE_MS, or when the ledger changed (an action
 * confirmed, say): the metadata of a token whose callback just went out is never older than its chain.
 */
@Injectable()
export class RegistryHead implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger(RegistryHead.name);
  private readonly listeners = new Set<(changes: HeadChanges) => void | Promise<void>>();
  private head: ChainHead | null = null;
  private lookedAt = 0;
  private ledgerChanged = false;
  private looking: Promise<ChainHead> | null = null;
  private unsubscribe: (() => void) | null = null;

  constructor(
    private readonly chain: ChainClient,
    private readonly ledgerChanges: ActionChangesListener,
    @InjectConfig() private readonly config: AppConfig,
  ) {}

  onModuleInit(): void {
    if (!this.chain.configured) return;
    this.unsubscribe = this.ledgerChanges.subscribe(() => {
      this.ledgerChanged = true;
    });
  }

  onModuleDestroy(): void {
    this.unsubscribe?.();
  }

  /** Told of every change found, before the head that shows it is handed out (a listener that returns a promise is waited for). */
  onChanges(listener: (changes: HeadChanges) => void | Promise<void>): void {
    this.listeners.add(listener);
  }

  /** The head to read at now; a failed look keeps the last head, if there is one, so that cached tokens are still served. */
  async current(): Promise<ChainHead> {
    if (this.head !== null && !this.due()) return this.head;
    this.looking ??= this.look().finally(() => {
      this.looking = null;
    });
    try {
      return await this.looking;
    } catch (error) {
      if (this.head === null) throw error;
      this.logger.warn(`the chain's head could not be read, metadata stays at block ${this.head.number}: ${(error as Error).message}`);
      return this.head;
    }
  }

  private due(): boolean {
    const age = Date.now() - this.lookedAt;
    return age >= this.config.tokenMetadata.headMaxAgeMs || (this.ledgerChanged && age >= MIN_LOOK_INTERVAL_MS);
  }

  private async look(): Promise<ChainHead> {
    this.ledgerChanged = false;
    const provider = await this.chain.connect();
    const latest = headOf((await provider.send("eth_getBlockByNumber", ["latest", false])) as RawBlock | null);
    const previous = this.head;
    const changes = previous === null ? RESET : latest.hash === previous.hash ? null : await this.changesSince(provider, previous, latest);
    if (changes) for (const listener of this.listeners) await listener(changes);
    this.head = latest;
    this.lookedAt = Date.now();
    return latest;
  }

  private async changesSince(provider: JsonRpcProvider, previous: ChainHead, latest: ChainHead): Promise<HeadChanges> {
    if (latest.number <= previous.number || latest.number - previous.number > MAX_BLOCKS_CAUGHT_UP) return RESET;
    const registry = this.chain.registry;
    const topics = (["BatchMetadataUpdate", "MetadataUpdate", "EventUpdated", "EventRegistered"] as const).map((name) => registry.getEvent(name).topicHash);
    const [logs, previousNow] = await Promise.all([
      provider.getLogs({ address: this.chain.registryAddress, topics: [topics], fromBlock: previous.number + 1, toBlock: latest.number }),
      provider.send("eth_getBlockByNumber", [toQuantity(previous.number), false]) as Promise<RawBlock | null>,
    ]);
    if (previousNow?.hash !== previous.hash) return RESET;
    const changes: HeadChanges = { tokenRanges: [], updatedEvents: [], registeredEvents: [], reset: false };
    for (const log of logs) {
      const parsed = registry.parseLog(log);
      if (parsed?.name === "BatchMetadataUpdate") changes.tokenRanges.push([parsed.args[0] as bigint, parsed.args[1] as bigint]);
      if (parsed?.name === "MetadataUpdate") changes.tokenRanges.push([parsed.args[0] as bigint, parsed.args[0] as bigint]);
      if (parsed?.name === "EventUpdated") changes.updatedEvents.push(parsed.args.eventIndex as bigint);
      if (parsed?.name === "EventRegistered") changes.registeredEvents.push(parsed.args.eventIndex as bigint);
    }
    return changes;
  }
}

function headOf(block: RawBlock | null): ChainHead {
  if (!block) throw new Error("the node has no latest block");
  return { number: Number(block.number), hash: block.hash };
}
