import { getBytes, type Log } from "ethers";

import type { TicketRegistry } from "../../../typechain-types";

/** What the registry's logs say happened, counted per token and per event. */
export interface ChainTally {
  mints: Map<bigint, number>;
  transfers: Map<bigint, number>;
  resales: Map<bigint, number>;
  checkIns: Map<bigint, number>;
  invalidations: Map<bigint, number>;
  registrations: Map<bigint, number>;
  eventUpdates: Map<bigint, number>;
  /** ItemFailed logs: the reason (ItemFailure enum value) and the subject (a tokenId, or an event index). */
  failures: { reason: bigint; subject: bigint }[];
}

const BLOCKS_PER_QUERY = 2_000;
const RECORD_BYTES = 24;
const ZERO_ADDRESS = "0x0000000000000000000000000000000000000000";

/** Reads every log of the registry from block 0 and counts them. */
export async function tallyRegistryLogs(registry: TicketRegistry): Promise<ChainTally> {
  const tally: ChainTally = {
    mints: new Map(),
    transfers: new Map(),
    resales: new Map(),
    checkIns: new Map(),
    invalidations: new Map(),
    registrations: new Map(),
    eventUpdates: new Map(),
    failures: [],
  };
  const provider = registry.runner?.provider;
  if (!provider) throw new Error("the registry has no provider");
  const address = await registry.getAddress();
  const latest = await provider.getBlockNumber();
  for (let from = 0; from <= latest; from += BLOCKS_PER_QUERY) {
    const logs = await provider.getLogs({ address, fromBlock: from, toBlock: Math.min(latest, from + BLOCKS_PER_QUERY - 1) });
    for (const log of logs) count(registry, log, tally);
  }
  return tally;
}

function count(registry: TicketRegistry, log: Log, tally: ChainTally): void {
  const parsed = registry.interface.parseLog({ topics: [...log.topics], data: log.data });
  if (!parsed) return;
  const add = (map: Map<bigint, number>, key: bigint) => map.set(key, (map.get(key) ?? 0) + 1);
  // ethers decodes every uint (tokenId, eventIndex, the ItemFailure reason) as a bigint and bytes as a 0x hex string.
  switch (parsed.name) {
    case "Transfer":
      add(tally.transfers, parsed.args.tokenId as bigint);
      if (parsed.args.from === ZERO_ADDRESS) add(tally.mints, parsed.args.tokenId as bigint);
      break;
    case "TicketResold":
      add(tally.resales, parsed.args.tokenId as bigint);
      break;
    case "TicketsCheckedIn":
      for (const tokenId of recordTokenIds(parsed.args.records as string)) add(tally.checkIns, tokenId);
      break;
    case "TicketsInvalidated":
      for (const tokenId of recordTokenIds(parsed.args.records as string)) add(tally.invalidations, tokenId);
      break;
    case "EventRegistered":
      add(tally.registrations, parsed.args.eventIndex as bigint);
      break;
    case "EventUpdated":
      add(tally.eventUpdates, parsed.args.eventIndex as bigint);
      break;
    case "ItemFailed":
      tally.failures.push({ reason: parsed.args.reason as bigint, subject: parsed.args.subject as bigint });
      break;
  }
}

/** The tokenIds of packed 24-byte (uint128 tokenId, uint64 orderTime) records. */
function recordTokenIds(records: string): bigint[] {
  const bytes = getBytes(records);
  if (bytes.length % RECORD_BYTES !== 0) throw new Error(`records of ${bytes.length} bytes are not whole 24-byte records`);
  const tokenIds: bigint[] = [];
  for (let offset = 0; offset < bytes.length; offset += RECORD_BYTES) {
    tokenIds.push(BigInt("0x" + Buffer.from(bytes.subarray(offset, offset + 16)).toString("hex")));
  }
  return tokenIds;
}
