import { getAddress, keccak256, type Log, toUtf8Bytes, Wallet, ZeroHash } from "ethers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import {
  custodyMaskOf,
  encodeBatch,
  eventKeyOf,
  inCustodialSpace,
  type RegistryEventDetails,
  type RegistryWireItem,
  splitTokenId,
  ticketHashOf,
  ticketeerKeyOf,
  tokenIdOf,
} from "../../src/registry";
import { recordTokenIds } from "../../src/verify/event-activity";
import { sharedNodeUrl } from "../support/shared-nodes-global-setup";
import { compileSubgraphRecords, type SubgraphRecords } from "../support/subgraph-records";
import { deployTestChain, HARDHAT_KEYS, startTestChain, type TestChain } from "../support/test-chain";

/**
 * The subgraph's decoding (subgraph/src/records.ts, compiled to WebAssembly by the compiler graph-cli uses) against
 * a real chain: batches of every kind of item go through the registry, and its logs are replayed the way the
 * mappings handle them, with every byte-level decision (packed check-in, invalidation and metadata records,
 * custody masks, custodial addresses) taken by the WebAssembly. The tickets, flags and holders it yields must be
 * those the registry's tickets() view states (what the service's token reader reads), and each decoding must agree
 * with the service's own (src/registry, src/verify).
 */

/** What the mappings keep of a ticket (subgraph/schema.graphql's Ticket). */
interface IndexedTicket {
  holder: string;
  checkedIn: boolean;
  invalidated: boolean;
  claimed: boolean;
  resales: number;
  eventCancelled: boolean;
  metadataHash: string | null;
}

const ONE = 1n;
const TWO = 2n;
const CLAIMANT = Wallet.createRandom();
const SECOND_CLAIMANT = Wallet.createRandom().address;
const WALLET_BUYER = Wallet.createRandom().address;
const hashOf = (text: string) => keccak256(toUtf8Bytes(text));

let chain: TestChain;
let wasm: SubgraphRecords;
let logs: Log[];
let sentMetadata: Map<bigint, string>;
let soldTokens: bigint[];

const details = (name: string): RegistryEventDetails => ({
  name,
  currency: "EUR",
  shopUrl: "https://shop.example/",
  imageUrl: "https://img.example/e.png",
  latitude: 52.37,
  longitude: 4.89,
  startTime: 1_900_000_000n,
  endTime: 1_900_010_000n,
  organizer: "Example Live",
  metadataHash: ZeroHash,
});

const t1 = (serial: bigint) => tokenIdOf(ONE, serial);
const t2 = (serial: bigint) => tokenIdOf(TWO, serial);

/** Three batches and a wallet's own transfer: every kind of item, repeated check-ins, failures and a cancellation. */
async function runBatches(): Promise<void> {
  const operator = new Wallet(chain.signerKeys[0], chain.provider);
  const registry = chain.registry.connect(operator);
  const sale = (tokenId: bigint, orderTime: bigint) => ({ tokenId, ticketHash: ticketHashOf(`t-${tokenId}`), price: "25.50", orderTime });
  const ticketeer = ticketeerKeyOf("subgraph-test");
  sentMetadata = new Map([
    [t1(5n), hashOf("sold with metadata")],
    [t1(6n), hashOf("sold with metadata, then updated")],
  ]);
  const batches: RegistryWireItem[][] = [
    [
      { action: "registerEvent", eventIndex: ONE, eventKey: eventKeyOf("subgraph-test", "one"), ticketeer, details: details("One") },
      { action: "registerEvent", eventIndex: TWO, eventKey: eventKeyOf("subgraph-test", "two"), ticketeer, details: details("Two") },
      ...[1n, 2n, 3n, 4n].map((serial): RegistryWireItem => ({ action: "sold", ...sale(t1(serial), 1_800_000_000n + serial) })),
      ...[5n, 6n].map((serial): RegistryWireItem => ({
        action: "soldWithMetadata",
        ...sale(t1(serial), 1_800_000_100n),
        metadataHash: sentMetadata.get(t1(serial))!,
      })),
      ...[1n, 2n, 3n].map((serial): RegistryWireItem => ({ action: "sold", ...sale(t2(serial), 1_800_000_200n) })),
    ],
    [
      { action: "checkedIn", tokenId: t1(1n), orderTime: 1_800_001_001n },
      { action: "checkedIn", tokenId: t1(2n), orderTime: 1_800_001_002n },
      { action: "checkedIn", tokenId: t1(1n), orderTime: 1_800_001_003n },
      { action: "invalidated", tokenId: t1(3n), orderTime: 1_800_001_004n },
      { action: "resold", tokenId: t1(4n), price: "30", orderTime: 1_800_001_005n },
      { action: "resold", tokenId: t1(4n), price: "35", orderTime: 1_800_001_006n },
      { action: "checkedIn", tokenId: t1(5n), orderTime: 1_800_001_010n },
      { action: "claimed", tokenId: t1(5n), to: CLAIMANT.address },
      { action: "updateTicket", tokenId: t1(6n), metadataHash: hashOf("updated") },
      { action: "updateTicket", tokenId: t1(2n), metadataHash: hashOf("updated too") },
      { action: "checkedIn", tokenId: t2(1n), orderTime: 1_800_001_007n },
      { action: "invalidated", tokenId: t2(2n), orderTime: 1_800_001_008n },
      { action: "checkedIn", tokenId: t1(9n), orderTime: 1_800_001_009n },
      { action: "checkedIn", tokenId: t1(4n), orderTime: 1_800_001_011n },
    ],
    [
      { action: "cancelEvent", eventIndex: TWO },
      { action: "updateEvent", eventIndex: ONE, details: { ...details("One, moved"), metadataHash: hashOf("event metadata") } },
      { action: "claimed", tokenId: t1(4n), to: SECOND_CLAIMANT },
      { action: "invalidated", tokenId: t1(6n), orderTime: 1_800_002_000n },
      { action: "checkedIn", tokenId: t1(2n), orderTime: 1_800_002_001n },
    ],
  ];
  sentMetadata.set(t1(6n), hashOf("updated"));
  sentMetadata.set(t1(2n), hashOf("updated too"));
  soldTokens = [1n, 2n, 3n, 4n, 5n, 6n].map(t1).concat([1n, 2n, 3n].map(t2));
  for (const batch of batches) await (await registry.execute(encodeBatch(batch))).wait();

  // The claimant's wallet moves its token on: a transfer between wallets, not a claim.
  const admin = new Wallet(HARDHAT_KEYS[0], chain.provider);
  await (await admin.sendTransaction({ to: CLAIMANT.address, value: 10n ** 17n })).wait();
  const claimant = chain.registry.connect(CLAIMANT.connect(chain.provider));
  await (await claimant.transferFrom(CLAIMANT.address, WALLET_BUYER, t1(5n))).wait();
}

/** subgraph/src/tickets.ts and events.ts, log by log, with the WebAssembly deciding what the bytes say. */
function replay(): Map<bigint, IndexedTicket> {
  const events = new Map<bigint, { custody: string; mask: string; cancelled: boolean }>();
  const tickets = new Map<bigint, IndexedTicket>();
  const ticketOf = (tokenId: bigint): IndexedTicket | undefined => {
    const event = events.get(splitTokenId(tokenId).eventIndex);
    if (!event) return undefined;
    if (!tickets.has(tokenId)) {
      tickets.set(tokenId, {
        holder: event.custody,
        checkedIn: false,
        invalidated: false,
        claimed: false,
        resales: 0,
        eventCancelled: event.cancelled,
        metadataHash: null,
      });
    }
    return tickets.get(tokenId);
  };
  for (const log of logs) {
    const parsed = chain.registry.interface.parseLog(log);
    const args = parsed?.args;
    switch (parsed?.name) {
      case "EventRegistered": {
        const custody = getAddress(args!.custody as string);
        events.set(args!.eventIndex as bigint, { custody, mask: wasm.custodyMaskOf(custody, args!.eventIndex as bigint), cancelled: false });
        break;
      }
      case "EventCancelled":
        events.get(args!.eventIndex as bigint)!.cancelled = true;
        for (const [tokenId, ticket] of tickets) if (splitTokenId(tokenId).eventIndex === args!.eventIndex) ticket.eventCancelled = true;
        break;
      case "TicketSold":
        ticketOf(args!.tokenId as bigint);
        break;
      case "TicketResold":
        ticketOf(args!.tokenId as bigint)!.resales = Number(args!.resales);
        break;
      case "TicketsCheckedIn":
      case "TicketsInvalidated":
        for (const { tokenId } of wasm.timeRecords(args!.records as string)) {
          const ticket = ticketOf(tokenId);
          if (ticket && parsed.name === "TicketsCheckedIn") ticket.checkedIn = true;
          else if (ticket) ticket.invalidated = true;
        }
        break;
      case "TicketsMetadataUpdated":
        for (const { tokenId, metadataHash } of wasm.metadataRecords(args!.records as string)) {
          const ticket = ticketOf(tokenId);
          if (ticket) ticket.metadataHash = metadataHash;
        }
        break;
      case "Transfer": {
        const ticket = ticketOf(args!.tokenId as bigint);
        if (!ticket) break;
        const { mask } = events.get(splitTokenId(args!.tokenId as bigint).eventIndex)!;
        if (wasm.inCustodialSpace(mask, args!.from as string) && !wasm.inCustodialSpace(mask, args!.to as string)) ticket.claimed = true;
        ticket.holder = getAddress(args!.to as string);
        break;
      }
    }
  }
  return tickets;
}

const logsNamed = (name: string) => logs.filter((log) => chain.registry.interface.parseLog(log)?.name === name);

beforeAll(async () => {
  wasm = await compileSubgraphRecords();
  const url = sharedNodeUrl("hardhat");
  chain = url ? await deployTestChain(url) : await startTestChain();
  const from = await chain.provider.getBlockNumber();
  await runBatches();
  logs = await chain.provider.getLogs({ address: chain.registryAddress, fromBlock: from, toBlock: "latest" });
});

afterAll(async () => {
  await chain?.stop();
});

describe("the subgraph's decoding of a real chain's logs", () => {
  it("yields the tickets, flags and holders the registry's tickets() view states", async () => {
    const indexed = replay();
    expect([...indexed.keys()].sort()).toEqual([...soldTokens].sort());
    const views = await chain.registry.tickets(soldTokens);
    const onChain = views.map((view) => ({
      holder: getAddress(view.holder),
      checkedIn: view.checkedIn,
      invalidated: view.invalidated,
      claimed: view.claimed,
      resales: Number(view.resales),
      eventCancelled: view.eventCancelled,
    }));
    expect(soldTokens.map((tokenId) => ({ ...indexed.get(tokenId)!, metadataHash: undefined }))).toEqual(
      onChain.map((view) => ({ ...view, metadataHash: undefined })),
    );
    // What the batches did, so that a replay agreeing with a view that changed nothing cannot pass.
    expect(indexed.get(t1(1n))).toMatchObject({ checkedIn: true, invalidated: false });
    expect(indexed.get(t1(6n))).toMatchObject({ checkedIn: false, invalidated: true });
    expect(indexed.get(t1(4n))).toMatchObject({ resales: 2, claimed: true, holder: getAddress(SECOND_CLAIMANT) });
    expect(indexed.get(t1(5n))).toMatchObject({ claimed: true, holder: getAddress(WALLET_BUYER) });
    expect(indexed.get(t2(3n))).toMatchObject({ eventCancelled: true, checkedIn: false });
  });

  it("reads each ticket's latest metadata hash from the packed metadata records", () => {
    const indexed = replay();
    for (const tokenId of soldTokens) expect(indexed.get(tokenId)!.metadataHash).toBe(sentMetadata.get(tokenId) ?? null);
  });

  it("decodes the packed check-in and invalidation records as the service does, order times included", () => {
    const runs = [...logsNamed("TicketsCheckedIn"), ...logsNamed("TicketsInvalidated")];
    expect(runs.length).toBeGreaterThanOrEqual(4);
    const orderTimes: bigint[] = [];
    for (const log of runs) {
      const records = chain.registry.interface.parseLog(log)!.args.records as string;
      const decoded = wasm.timeRecords(records);
      expect(decoded.map((record) => record.tokenId)).toEqual(recordTokenIds(records));
      orderTimes.push(...decoded.map((record) => record.orderTime));
    }
    // The repeated check-in of t1(1) is a record of its own; the unsold t1(9) is skipped (TicketUnknown), not recorded.
    expect(orderTimes.sort()).toEqual([
      1_800_001_001n,
      1_800_001_002n,
      1_800_001_003n,
      1_800_001_004n,
      1_800_001_007n,
      1_800_001_008n,
      1_800_001_010n,
      1_800_001_011n,
      1_800_002_000n,
      1_800_002_001n,
    ]);
    const failures = logsNamed("ItemFailed").map((log) => chain.registry.interface.parseLog(log)!.args);
    expect(failures.map((failure) => [failure.subject, Number(failure.reason)])).toEqual([[t1(9n), 4]]);
  });

  it("finds the registry's custodial address space as the service does", async () => {
    const { chainId } = await chain.provider.getNetwork();
    const serviceMask = custodyMaskOf(chainId, chain.registryAddress);
    const registrations = logsNamed("EventRegistered").map((log) => chain.registry.interface.parseLog(log)!.args);
    for (const registration of registrations) {
      expect(BigInt(wasm.custodyMaskOf(registration.custody as string, registration.eventIndex as bigint))).toBe(serviceMask);
    }
    const mask = "0x" + serviceMask.toString(16).padStart(40, "0");
    const addresses = logsNamed("Transfer").flatMap((log) => {
      const { from, to } = chain.registry.interface.parseLog(log)!.args;
      return [from as string, to as string];
    });
    expect(addresses.some((address) => inCustodialSpace(serviceMask, address))).toBe(true);
    for (const address of addresses) expect(wasm.inCustodialSpace(mask, address)).toBe(inCustodialSpace(serviceMask, address));
  });

  it("counts a block's day as the daily counts do", async () => {
    const block = await chain.provider.getBlock(logs.at(-1)!.blockNumber);
    expect(wasm.dayOf(BigInt(block!.timestamp))).toBe(BigInt(Math.floor(block!.timestamp / 86_400)));
  });
});
