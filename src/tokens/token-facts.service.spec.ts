import { describe, expect, it } from "vitest";

import type { ChainClient } from "../chain/chain-client";
import { loadConfig } from "../config/app-config";
import { tokenIdOf } from "../registry";
import type { HeadChanges, RegistryHead } from "./chain/registry-head";
import type { RegistryReads, TicketOnChain } from "./chain/registry-reads";
import type { EventFacts } from "./chain/token-facts";
import { TokenFactsService } from "./token-facts.service";

const EVENT: EventFacts = {
  name: "Concert",
  organizer: "Org",
  currency: "EUR",
  shopUrl: "",
  imageUrl: "",
  latitude: 0,
  longitude: 0,
  startTime: 0n,
  endTime: 0n,
};

/** A chain of one event whose first `minted` serials are sold, read through counting stand-ins of the head and the reads. */
function fixture(minted = 100) {
  let onChanges: (changes: HeadChanges) => void = () => undefined;
  let block = 10;
  const calls = { tickets: 0, prices: 0, events: 0 };
  /** The block from which the event is called "Moved indoors" on chain. */
  let renamedFrom = Infinity;
  let beforeEventRead: () => void = () => undefined;
  const head = {
    onChanges: (listener: (changes: HeadChanges) => void) => (onChanges = listener),
    current: async () => ({ number: block, hash: `0x${block}` }),
  } as unknown as RegistryHead;
  const reads = {
    tickets: async (ids: readonly bigint[]): Promise<TicketOnChain[]> => {
      calls.tickets += 1;
      return ids.map((tokenId) => ({
        tokenId,
        minted: (tokenId & 0xffffffffffffffffn) <= BigInt(minted),
        checkedIn: false,
        invalidated: false,
        claimed: false,
        resales: 0,
      }));
    },
    lastPrices: async (ids: readonly bigint[]) => {
      calls.prices += 1;
      return new Map(ids.map((id) => [id, 1_000_000n]));
    },
    eventDetails: async (_eventIndex: bigint, blockNumber: number) => {
      beforeEventRead();
      calls.events += 1;
      return { ...EVENT, name: blockNumber >= renamedFrom ? "Moved indoors" : "Concert" };
    },
  } as unknown as RegistryReads;
  const chain = { configured: true } as ChainClient;
  const sut = new TokenFactsService(chain, head, reads, loadConfig({}));
  return {
    sut,
    calls,
    change: (changes: Partial<HeadChanges>) => {
      block += 1;
      onChanges({ tokenRanges: [], updatedEvents: [], reset: false, ...changes });
    },
    renameEvent: () => {
      renamedFrom = block + 1;
    },
    onEventRead: (hook: () => void) => (beforeEventRead = hook),
  };
}

describe("TokenFactsService", () => {
  it("reads a token with its neighbours in one window, and the window again only once the chain says it changed", async () => {
    const { sut, calls, change } = fixture();
    expect((await sut.facts(tokenIdOf(1n, 5n)))?.event?.name).toBe("Concert");
    await sut.facts(tokenIdOf(1n, 60n));
    expect(calls).toEqual({ tickets: 1, prices: 1, events: 1 });
    expect(await sut.facts(tokenIdOf(1n, 101n))).toBeNull();
    expect(calls.tickets).toBe(2);

    change({ tokenRanges: [[tokenIdOf(1n, 70n), tokenIdOf(1n, 70n)]] });
    await sut.facts(tokenIdOf(1n, 5n));
    expect(calls.tickets).toBe(2);
    await sut.facts(tokenIdOf(1n, 70n));
    expect(calls.tickets).toBe(3);
  });

  it("answers null for a number that names no ticket without reading the chain", async () => {
    const { sut, calls } = fixture();
    for (const tokenId of [0n, 1n, 1n << 64n, 1n << 130n]) expect(await sut.facts(tokenId)).toBeNull();
    expect(calls.tickets).toBe(0);
  });

  it("never keeps an event's details read at a block from before its update, even when the update lands mid-read", async () => {
    const { sut, change, renameEvent, onEventRead } = fixture();
    // The update is seen between the window's tickets read and its event read, which started at the old block.
    onEventRead(() => {
      onEventRead(() => undefined);
      renameEvent();
      change({ updatedEvents: [1n] });
    });
    expect((await sut.facts(tokenIdOf(1n, 5n)))?.event?.name).toBe("Concert");
    expect((await sut.facts(tokenIdOf(1n, 5n)))?.event?.name).toBe("Moved indoors");
    expect((await sut.facts(tokenIdOf(1n, 70n)))?.event?.name).toBe("Moved indoors");
  });

  it("forgets everything on a reset (a reorg)", async () => {
    const { sut, calls, change } = fixture();
    await sut.facts(tokenIdOf(1n, 5n));
    change({ reset: true });
    await sut.facts(tokenIdOf(1n, 5n));
    expect(calls).toEqual({ tickets: 2, prices: 2, events: 2 });
  });
});
