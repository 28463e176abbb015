import { keccak256, type Log, toUtf8Bytes, Wallet, ZeroHash } from "ethers";
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
import { buildSubgraph, startSubgraph, type SubgraphRun } from "../support/subgraph-host";
import { compileSubgraphRecords, type SubgraphRecords } from "../support/subgraph-records";
import { defaultChainNode, deployTestChain, HARDHAT_KEYS, startTestChain, type TestChain } from "../support/test-chain";

/**
 * The subgraph against a real chain. Batches of every kind of item go through a registry on a real node, then a
 * wallet's own transfer; the logs go to the handlers of the built subgraph (`npm run subgraph:build`'s WebAssembly,
 * run in Node by subgraph-host.ts: matchstick downloads its runner). The tickets, flags and holders it stores must
 * be those the registry's tickets() view states (what the service's token reader reads), and its counts those the
 * view and the batches give. Its decoding file, subgraph/src/records.ts, compiled alone, must decode the packed
 * records and the custodial address space as the service's own code does (src/verify, src/registry).
 */

const ONE = 1n;
const TWO = 2n;
const CLAIMANT = Wallet.createRandom();
const SECOND_CLAIMANT = Wallet.createRandom().address;
const WALLET_BUYER = Wallet.createRandom().address;
const hashOf = (text: string) => keccak256(toUtf8Bytes(text));

let chain: TestChain;
let decoding: SubgraphRecords;
let logs: Log[];
let sentMetadata: Map<bigint, string>;
let soldTokens: bigint[];
let subgraph: SubgraphRun;

const byId = (a: { id: unknown }, b: { id: unknown }) => String(a.id).localeCompare(String(b.id));

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

const logsNamed = (name: string) => logs.filter((log) => chain.registry.interface.parseLog(log)?.name === name);

beforeAll(async () => {
  buildSubgraph();
  decoding = await compileSubgraphRecords();
  const url = sharedNodeUrl(defaultChainNode().kind);
  chain = url ? await deployTestChain(url) : await startTestChain();
  const from = await chain.provider.getBlockNumber();
  await runBatches();
  logs = await chain.provider.getLogs({ address: chain.registryAddress, fromBlock: from, toBlock: "latest" });
  subgraph = await startSubgraph(chain.registry.interface);
  for (const log of logs) {
    const block = (await chain.provider.getBlock(log.blockNumber))!;
    const tx = (await chain.provider.getTransaction(log.transactionHash))!;
    subgraph.handle(log, { number: block.number, timestamp: block.timestamp, hash: block.hash! }, { hash: tx.hash, index: tx.index, from: tx.from });
  }
});

afterAll(async () => {
  await chain?.stop();
});

describe("the subgraph on a real chain's logs", () => {
  it("yields the tickets, flags and holders the registry's tickets() view states, and the metadata hashes sent", async () => {
    const views = await chain.registry.tickets(soldTokens);
    const onChain = views.map((view, i) => ({
      id: soldTokens[i].toString(),
      holder: view.holder.toLowerCase(),
      checkedIn: view.checkedIn,
      invalidated: view.invalidated,
      claimed: view.claimed,
      resales: Number(view.resales),
      eventCancelled: view.eventCancelled,
      metadataHash: sentMetadata.get(soldTokens[i]),
    }));
    const indexed = subgraph.store.all("Ticket").map(({ id, holder, checkedIn, invalidated, claimed, resales, eventCancelled, metadataHash }) => ({
      id,
      holder,
      checkedIn,
      invalidated,
      claimed,
      resales,
      eventCancelled,
      metadataHash,
    }));
    expect(indexed.sort(byId)).toEqual(onChain.sort(byId));
    // What the batches did, so that mappings agreeing with a view that changed nothing cannot pass.
    expect(subgraph.store.get("Ticket", t1(1n).toString())).toMatchObject({ checkedIn: true, invalidated: false, checkedInAt: 1_800_001_001n });
    expect(subgraph.store.get("Ticket", t1(6n).toString())).toMatchObject({ checkedIn: false, invalidated: true });
    expect(subgraph.store.get("Ticket", t1(4n).toString())).toMatchObject({
      resales: 2,
      claimed: true,
      holder: SECOND_CLAIMANT.toLowerCase(),
      price: 35_000_000n,
    });
    expect(subgraph.store.get("Ticket", t1(5n).toString())).toMatchObject({ claimed: true, holder: WALLET_BUYER.toLowerCase() });
    expect(subgraph.store.get("Ticket", t2(3n).toString())).toMatchObject({ eventCancelled: true, checkedIn: false });
  });

  it("tells mints, resales, claims and wallets' transfers apart", () => {
    const kinds = (tokenId: bigint) =>
      subgraph.store
        .all("Transfer")
        .filter((transfer) => transfer.ticket === tokenId.toString())
        .map((transfer) => transfer.kind);
    expect(kinds(t1(4n))).toEqual(["mint", "resale", "resale", "claim"]);
    expect(kinds(t1(5n))).toEqual(["mint", "claim", "wallet"]);
    expect(kinds(t2(1n))).toEqual(["mint"]);
  });

  it("counts each event's tickets, and per day, as the registry's view and the batches give them", async () => {
    const views = await chain.registry.tickets(soldTokens);
    const count = (eventIndex: bigint, flag: "checkedIn" | "invalidated" | "claimed") =>
      views.filter((view) => view.eventIndex === eventIndex && view[flag]).length;
    for (const eventIndex of [ONE, TWO]) {
      const event = subgraph.store.get("Event", eventIndex.toString());
      expect(event).toMatchObject({
        ticketsSold: soldTokens.filter((tokenId) => splitTokenId(tokenId).eventIndex === eventIndex).length,
        checkedIn: count(eventIndex, "checkedIn"),
        invalidated: count(eventIndex, "invalidated"),
        claimed: count(eventIndex, "claimed"),
        resales: views.filter((view) => view.eventIndex === eventIndex).reduce((sum, view) => sum + Number(view.resales), 0),
      });
      const days = subgraph.store.all("EventDay").filter((day) => day.event === eventIndex.toString());
      for (const field of ["ticketsSold", "checkedIn", "invalidated", "claimed", "resales", "metadataUpdates"]) {
        const dayField = field === "ticketsSold" ? "sold" : field;
        expect(days.reduce((sum, day) => sum + (day[dayField] as number), 0)).toBe(event![field]);
      }
    }
    expect(subgraph.store.get("Event", "1")).toMatchObject({
      name: "One, moved",
      metadataHash: hashOf("event metadata"),
      cancelled: false,
      metadataUpdates: 4,
    });
    const registration = chain.registry.interface.parseLog(logsNamed("EventRegistered")[1])!.args;
    expect(subgraph.store.get("Event", "2")).toMatchObject({
      cancelled: true,
      checkedIn: 1,
      invalidated: 1,
      custody: (registration.custody as string).toLowerCase(),
      eventKey: eventKeyOf("subgraph-test", "two"),
      name: "Two",
      latitude: 523_700_000,
      longitude: 48_900_000,
      startTime: 1_900_000_000n,
      organizer: "Example Live",
      metadataHash: ZeroHash,
    });
    expect(subgraph.store.get("Registry", chain.registryAddress.toLowerCase())).toMatchObject({ events: 2n, ticketsSold: 9n });
    // Ten check-in and invalidation records, two of them repeated check-ins that change nothing.
    const ticketRecords = subgraph.store.all("TicketRecord");
    expect([ticketRecords.length, ticketRecords.filter((record) => !record.changed).length]).toEqual([10, 2]);
    expect(subgraph.store.all("ItemFailure").map((failure) => [failure.subject, failure.reason])).toEqual([[t1(9n), 4]]);
    expect(subgraph.store.all("MetadataRefresh").length).toBeGreaterThan(0);
  });

  it("decodes the packed check-in and invalidation records as the service does, order times included", () => {
    const runs = [...logsNamed("TicketsCheckedIn"), ...logsNamed("TicketsInvalidated")];
    expect(runs.length).toBeGreaterThanOrEqual(4);
    const orderTimes: bigint[] = [];
    for (const log of runs) {
      const records = chain.registry.interface.parseLog(log)!.args.records as string;
      const decoded = decoding.timeRecords(records);
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
      expect(BigInt(decoding.custodyMaskOf(registration.custody as string, registration.eventIndex as bigint))).toBe(serviceMask);
    }
    const mask = "0x" + serviceMask.toString(16).padStart(40, "0");
    const addresses = logsNamed("Transfer").flatMap((log) => {
      const { from, to } = chain.registry.interface.parseLog(log)!.args;
      return [from as string, to as string];
    });
    expect(addresses.some((address) => inCustodialSpace(serviceMask, address))).toBe(true);
    for (const address of addresses) expect(decoding.inCustodialSpace(mask, address)).toBe(inCustodialSpace(serviceMask, address));
  });

  it("counts a block's day as the daily counts do", async () => {
    const block = await chain.provider.getBlock(logs.at(-1)!.blockNumber);
    expect(decoding.dayOf(BigInt(block!.timestamp))).toBe(BigInt(Math.floor(block!.timestamp / 86_400)));
  });
});
