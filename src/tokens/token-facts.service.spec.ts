import { ZeroHash } from "ethers";
import { describe, expect, it } from "vitest";

import type { ChainClient } from "../chain/chain-client";
import { loadConfig } from "../config/app-config";
import { tokenIdOf } from "../registry";
import { RegistryExtent } from "./chain/registry-extent";
import type { HeadChanges, RegistryHead } from "./chain/registry-head";
import type { RegistryReads, TicketOnChain } from "./chain/registry-reads";
import type { EventFacts } from "./chain/token-facts";
import type { LedgerExtentStore } from "./ledger-extent.store";
import { TokenFactsService } from "./token-facts.service";

const EVENT: EventFacts = {
  name: "Concert",
  organizer: "Org",
  metadataHash: ZeroHash,
  currency: "EUR",
  shopUrl: "",
  imageUrl: "",
  latitude: 0,
  longitude: 0,
  startTime: 0n,
  endTime: 0n,
};

/**
 * A chain of one event (index 1) whose first `minted` serials are sold, read through counting stand-ins of
 * the head and the reads, and a ledger that handed out event indexes up to 3 (2 and 3 never registered)
 * and event 1's serials up to 200 (some reserved and left unused).
 */
async function fixture(minted = 100) {
  const listeners: ((changes: HeadChanges) => void | Promise<void>)[] = [];
  let block = 10;
  const calls = { tickets: 0, prices: 0, events: 0 };
  const registered = new Set([1n]);
  const cancelled = new Set<bigint>();
  /** The block from which the event is called "Moved indoors" on chain. */
  let renamedFrom = Infinity;
  let beforeEventRead: () => void = () => undefined;
  const head = {
    onChanges: (listener: (changes: HeadChanges) => void | Promise<void>) => listeners.push(listener),
    current: async () => ({ number: block, hash: `0x${block}` }),
  } as unknown as RegistryHead;
  const reads = {
    tickets: async (ids: readonly bigint[]): Promise<TicketOnChain[]> => {
      calls.tickets += 1;
      return ids.map((tokenId) => ({
        tokenId,
        minted: registered.has(tokenId >> 64n) && (tokenId & 0xffffffffffffffffn) <= BigInt(minted),
        checkedIn: false,
        invalidated: false,
        claimed: false,
        eventCancelled: cancelled.has(tokenId >> 64n),
        resales: 0,
      }));
    },
    lastPrices: async (ids: readonly bigint[]) => {
      calls.prices += 1;
      return new Map(ids.map((id) => [id, 1_000_000n]));
    },
    eventDetails: async (eventIndex: bigint, blockNumber: number) => {
      beforeEventRead();
      calls.events += 1;
      if (!registered.has(eventIndex)) return null;
      return { ...EVENT, name: blockNumber >= renamedFrom ? "Moved indoors" : "Concert" };
    },
  } as unknown as RegistryReads;
  const ledger = { extent: async () => ({ highestEventIndex: 3n, lastSerials: new Map([[1n, 200n]]) }) } as LedgerExtentStore;
  const chain = { configured: true } as ChainClient;
  const sut = new TokenFactsService(chain, head, reads, new RegistryExtent(ledger, head), loadConfig({}));
  const change = async (changes: Partial<HeadChanges>) => {
    block += 1;
    for (const listener of listeners) await listener({ tokenRanges: [], updatedEvents: [], registeredEvents: [], reset: false, ...changes });
  };
  // The head's first look: a reset, which seeds the extent from the ledger.
  await change({ reset: true });
  return {
    sut,
    calls,
    change,
    register: (eventIndex: bigint) => registered.add(eventIndex),
    cancel: (eventIndex: bigint) => cancelled.add(eventIndex),
    renameEvent: () => {
      renamedFrom = block + 1;
    },
    onEventRead: (hook: () => void) => (beforeEventRead = hook),
  };
}

describe("TokenFactsService", () => {
  it("reads a token with its neighbours in one window, and the window again only once the chain says it changed", async () => {
    const { sut, calls, change } = await fixture();
    expect((await sut.facts(tokenIdOf(1n, 5n)))?.event?.name).toBe("Concert");
    await sut.facts(tokenIdOf(1n, 60n));
    expect(calls).toEqual({ tickets: 1, prices: 1, events: 1 });
    expect(await sut.facts(tokenIdOf(1n, 101n))).toBeNull();
    expect(calls.tickets).toBe(2);

    await change({ tokenRanges: [[tokenIdOf(1n, 70n), tokenIdOf(1n, 70n)]] });
    await sut.facts(tokenIdOf(1n, 5n));
    expect(calls.tickets).toBe(2);
    await sut.facts(tokenIdOf(1n, 70n));
    expect(calls.tickets).toBe(3);
  });

  it("answers null for a number that names no ticket without reading the chain", async () => {
    const { sut, calls } = await fixture();
    for (const tokenId of [0n, 1n, 1n << 64n, 1n << 130n]) expect(await sut.facts(tokenId)).toBeNull();
    expect(calls.tickets).toBe(0);
  });

  it("never keeps an event's details read at a block from before its update, even when the update lands mid-read", async () => {
    const { sut, change, renameEvent, onEventRead } = await fixture();
    // The update is seen between the window's tickets read and its event read, which started at the old block.
    onEventRead(() => {
      onEventRead(() => undefined);
      renameEvent();
      void change({ updatedEvents: [1n] });
    });
    expect((await sut.facts(tokenIdOf(1n, 5n)))?.event?.name).toBe("Concert");
    expect((await sut.facts(tokenIdOf(1n, 5n)))?.event?.name).toBe("Moved indoors");
    expect((await sut.facts(tokenIdOf(1n, 70n)))?.event?.name).toBe("Moved indoors");
  });

  it("shows every token of an event cancelled once the cancellation's event-wide signal came, and only then", async () => {
    const { sut, change, cancel } = await fixture();
    expect((await sut.facts(tokenIdOf(1n, 5n)))?.state).toBe("Valid");
    expect((await sut.facts(tokenIdOf(1n, 70n)))?.state).toBe("Valid");
    cancel(1n);
    expect((await sut.facts(tokenIdOf(1n, 5n)))?.state).toBe("Valid");
    await change({ tokenRanges: [[tokenIdOf(1n, 1n), tokenIdOf(1n, (1n << 64n) - 1n)]] });
    expect((await sut.facts(tokenIdOf(1n, 5n)))?.state).toBe("Event cancelled");
    expect((await sut.facts(tokenIdOf(1n, 70n)))?.state).toBe("Event cancelled");
  });

  it("forgets everything on a reset (a reorg)", async () => {
    const { sut, calls, change } = await fixture();
    await sut.facts(tokenIdOf(1n, 5n));
    await change({ reset: true });
    await sut.facts(tokenIdOf(1n, 5n));
    expect(calls).toEqual({ tickets: 2, prices: 2, events: 2 });
  });

  it("answers a token past the highest event index handed out, or past its event's last serial, without reading the chain", async () => {
    const { sut, calls } = await fixture();
    for (const tokenId of [tokenIdOf(4n, 1n), tokenIdOf(1_000_000n, 1n), tokenIdOf(1n, 201n), tokenIdOf(1n, 10_000n)])
      expect(await sut.facts(tokenId)).toBeNull();
    expect(calls).toEqual({ tickets: 0, prices: 0, events: 0 });
  });

  it("asks the chain once whether an event index handed out but not the ledger's was registered, and then knows", async () => {
    const { sut, calls } = await fixture();
    for (const serial of [1n, 2n, 500n, 1n << 40n]) expect(await sut.facts(tokenIdOf(2n, serial))).toBeNull();
    expect(calls).toEqual({ tickets: 0, prices: 0, events: 1 });
  });

  it("follows new events and serials in the head's logs; an event-wide signal (EventUpdated) says nothing of serials", async () => {
    const { sut, calls, change, register } = await fixture();
    register(5n);
    await change({ registeredEvents: [5n], tokenRanges: [[tokenIdOf(5n, 1n), tokenIdOf(5n, 3n)]] });
    expect((await sut.facts(tokenIdOf(5n, 3n)))?.serial).toBe(3n);
    expect(calls.tickets).toBe(1);
    await change({ updatedEvents: [5n], tokenRanges: [[tokenIdOf(5n, 1n), tokenIdOf(5n, (1n << 64n) - 1n)]] });
    expect(await sut.facts(tokenIdOf(5n, 65n))).toBeNull();
    expect(await sut.facts(tokenIdOf(6n, 1n))).toBeNull();
    expect(calls.tickets).toBe(1);
  });

  it("forgets that an event was not registered once it is: its first token shows the event", async () => {
    const { sut, change, register } = await fixture();
    expect(await sut.facts(tokenIdOf(3n, 1n))).toBeNull();
    register(3n);
    await change({ registeredEvents: [3n], tokenRanges: [[tokenIdOf(3n, 1n), tokenIdOf(3n, 1n)]] });
    expect((await sut.facts(tokenIdOf(3n, 1n)))?.event?.name).toBe("Concert");
  });

  it("reads the chain for every token while the ledger could not be read at a reset", async () => {
    const listeners: ((changes: HeadChanges) => Promise<void> | void)[] = [];
    const head = { onChanges: (listener: (changes: HeadChanges) => Promise<void> | void) => listeners.push(listener) } as unknown as RegistryHead;
    const ledger = { extent: () => Promise.reject(new Error("database away")) } as unknown as LedgerExtentStore;
    const extent = new RegistryExtent(ledger, head);
    await expect(extent.follow({ tokenRanges: [], updatedEvents: [], registeredEvents: [], reset: true })).rejects.toThrow("database away");
    expect(extent.verdict(tokenIdOf(1_000n, 1n))).toBe("possible");
  });
});
