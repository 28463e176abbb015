import { Injectable } from "@nestjs/common";

import type { AppConfig } from "../config/app-config";
import { InjectConfig } from "../config/config.module";
import { ChainClient } from "../chain/chain-client";
import { isTicketTokenId } from "../registry";
import { LoadingCache } from "./chain/loading-cache";
import { RegistryExtent } from "./chain/registry-extent";
import { type HeadChanges, RegistryHead } from "./chain/registry-head";
import { RegistryReads } from "./chain/registry-reads";
import { type EventFacts, stateOf, type TokenFacts } from "./chain/token-facts";

/** log2 of the tokens read together: those whose flags share one storage word of the registry (tokenId >> 6). */
const WINDOW_BITS = 6n;
/** The event index of a window: tokenId >> 64. */
const WINDOW_EVENT_SHIFT = 64n - WINDOW_BITS;
const UINT64_MAX = (1n << 64n) - 1n;

type Window = Map<bigint, TokenFacts | null>;

/**
 * Tokens as the chain records them, kept in memory until the chain says they changed. A token is read
 * with the 63 or 64 tokens around it (a marketplace crawls them in a row): one tickets() view and one
 * log query for all of them, and one log query per event. The registry's ERC-4906 and EventUpdated
 * logs, which RegistryHead reads as blocks come, say which windows and events to read again; a reorg
 * forgets everything. So 1,000 tokens crawled cost about 2 calls per 64 tokens, and tokens read again
 * cost none. A token that cannot exist (RegistryExtent: its event index or serial past what was ever
 * handed out) costs none either; windows and events where nothing was found are kept apart from the
 * others (METADATA_CACHE_MISSES), so asking for tokens that do not exist never pushes real ones out.
 */
@Injectable()
export class TokenFactsService {
  private readonly windows: LoadingCache<bigint, Window>;
  private readonly events: LoadingCache<bigint, EventFacts | null>;

  constructor(
    private readonly chain: ChainClient,
    private readonly head: RegistryHead,
    private readonly reads: RegistryReads,
    private readonly extent: RegistryExtent,
    @InjectConfig() config: AppConfig,
  ) {
    const { cacheWindows, cacheMisses } = config.tokenMetadata;
    this.windows = new LoadingCache({ entries: cacheWindows, misses: cacheMisses, isMiss: (window) => ![...window.values()].some(Boolean) });
    this.events = new LoadingCache({ entries: cacheWindows, misses: cacheMisses, isMiss: (event) => event === null });
    head.onChanges((changes) => this.forget(changes));
  }

  get configured(): boolean {
    return this.chain.configured;
  }

  /** The token as the chain records it at its latest block; null when no such token was minted. */
  async facts(tokenId: bigint): Promise<TokenFacts | null> {
    if (!isTicketTokenId(tokenId)) return null;
    const { number } = await this.head.current();
    // Taken with the head, before anything else can run: what is read at this block is kept only if no change came since.
    const generations = { windows: this.windows.generation, events: this.events.generation };
    const verdict = this.extent.verdict(tokenId);
    if (verdict === "absent") return null;
    if (verdict === "unknown_event" && (await this.eventOf(tokenId >> 64n, number, generations.events)) === null) return null;
    const window = tokenId >> WINDOW_BITS;
    return (await this.windows.get(window, () => this.readWindow(window, number, generations.events), generations.windows)).get(tokenId) ?? null;
  }

  private async readWindow(window: bigint, blockNumber: number, eventsGeneration: number): Promise<Window> {
    const first = window << WINDOW_BITS;
    const ids = Array.from({ length: 1 << Number(WINDOW_BITS) }, (_, i) => first + BigInt(i)).filter((id) => (id & UINT64_MAX) !== 0n);
    const tickets = (await this.reads.tickets(ids, blockNumber)).filter((ticket) => ticket.minted);
    const facts: Window = new Map(ids.map((id) => [id, null]));
    if (tickets.length === 0) return facts;
    const eventIndex = window >> WINDOW_EVENT_SHIFT;
    const [prices, event] = await Promise.all([
      this.reads.lastPrices(
        tickets.map((ticket) => ticket.tokenId),
        blockNumber,
      ),
      this.eventOf(eventIndex, blockNumber, eventsGeneration),
    ]);
    for (const ticket of tickets) {
      facts.set(ticket.tokenId, {
        tokenId: ticket.tokenId,
        eventIndex,
        serial: ticket.tokenId & UINT64_MAX,
        state: stateOf(ticket),
        resales: ticket.resales,
        lastPrice: prices.get(ticket.tokenId) ?? null,
        event,
      });
    }
    return facts;
  }

  private eventOf(eventIndex: bigint, blockNumber: number, generation: number): Promise<EventFacts | null> {
    return this.events.get(eventIndex, () => this.reads.eventDetails(eventIndex, blockNumber), generation);
  }

  private forget(changes: HeadChanges): void {
    if (changes.reset) {
      this.windows.clear();
      this.events.clear();
      return;
    }
    for (const [from, to] of changes.tokenRanges) {
      const [low, high] = [from >> WINDOW_BITS, to >> WINDOW_BITS];
      this.windows.invalidate((window) => window >= low && window <= high);
    }
    // An event found unregistered (a miss) is registered now.
    const registered = new Set(changes.registeredEvents);
    if (registered.size > 0) this.events.invalidate((key) => registered.has(key));
    for (const eventIndex of changes.updatedEvents) {
      this.events.invalidate((key) => key === eventIndex);
      this.windows.invalidate((window) => window >> WINDOW_EVENT_SHIFT === eventIndex);
    }
  }
}
