import { Injectable } from "@nestjs/common";
import { AbiCoder, getAddress, keccak256, type Log, ZeroAddress } from "ethers";

import { type TicketRegistry, TicketRegistry__factory } from "../../typechain-types";
import type { TicketSoldEvent } from "../../typechain-types/TicketRegistry";
import { ChainClient } from "../chain/chain-client";
import type { AppConfig } from "../config/app-config";
import { InjectConfig } from "../config/config.module";
import type { MetadataCheck } from "./metadata-check.service";
import { eventKeyOf, type RegistryEventDetailsLog, splitTokenId, ticketHashOf } from "../registry";

/** Where and when something happened on chain, and how deep it is now. */
export interface ChainTx {
  txHash: string;
  blockNumber: number;
  /** Blocks on top of (and including) its block: 1 = in the latest block. */
  depth: number;
}

export type EventDetailsOnChain = RegistryEventDetailsLog;

export interface VerifiedEvent {
  eventIndex: bigint;
  eventKey: string;
  ticketeer: string;
  custody: string;
  ticketsSold: bigint;
  ticketsInCustody: bigint;
  /** The details of the last EventRegistered or EventUpdated log; null if no log was found. */
  details: EventDetailsOnChain | null;
  /** Whether those details hash to the registry's stored details hash. */
  detailsMatchStorage: boolean;
  registered: ChainTx | null;
  updates: ChainTx[];
  /** The registry holds the event cancelled: every one of its tickets is void. */
  cancelled: boolean;
  /** Its EventCancelled log; null when it is not cancelled (or the log was not found). */
  cancellation: ChainTx | null;
}

export type TransferKind = "sale" | "resale" | "claim" | "transfer";

export interface VerifiedSale {
  tokenId: bigint;
  /** The SHA-256 of the ticket id, as the sale log records it. */
  ticketHash: string;
  serial: bigint;
  eventKey: string;
  /** Whether the sale's event has the key of the eventId and ticketeerId the reader gave; null when not given. */
  eventMatches: boolean | null;
  sale: ChainTx & { price: bigint; orderTime: bigint };
  holder: string;
  checkedIn: boolean;
  invalidated: boolean;
  claimed: boolean;
  /** Its event is cancelled: the ticket is void, whatever its own flags. */
  eventCancelled: boolean;
  resaleCount: number;
  event: VerifiedEvent;
  resales: (ChainTx & { resales: number; price: bigint; orderTime: bigint })[];
  checkIns: (ChainTx & { orderTime: bigint })[];
  invalidations: (ChainTx & { orderTime: bigint })[];
  transfers: (ChainTx & { from: string; to: string; kind: TransferKind })[];
  /** Whether the token's served metadata matches the chain's record; absent where not checked. */
  metadataCheck?: MetadataCheck;
}

export interface TicketVerification {
  /** The ticket id the reader gave; null when the reader asked by tokenId (the chain holds only the id's hash). */
  ticketId: string | null;
  /** The SHA-256 of the ticket id: the reader's, or the one the token's sale log records; null when there is no sale. */
  ticketHash: string | null;
  chainId: bigint;
  registryAddress: string;
  latestBlock: number;
  /** The depth at which the service counts an action confirmed (CONFIRMATIONS). */
  confirmations: number | "finalized";
  /** Every sale recorded under the ticket id's hash (ticket ids are unique per organization, not globally). */
  sales: VerifiedSale[];
}

/** The eventId and ticketeerId a reader may give to pick the sale of one event. */
export interface EventFilter {
  eventId: string;
  ticketeerId: string;
}

/** `records` of TicketsCheckedIn and TicketsInvalidated: 24-byte (uint128 tokenId, uint64 orderTime) pairs. */
const RECORD_BYTES = 24;

/** Details as the registry hashes them: keccak256(abi.encode(details)). */
const DETAILS_TUPLE =
  "tuple(string name, string currency, string shopUrl, string imageUrl, int32 latitude, int32 longitude, uint64 startTime, uint64 endTime, string organizer, bytes32 metadataHash)";

/**
 * Reads what the chain itself says about a ticket id, never the service's database: the sale found by
 * the indexed `ticketHash = sha256(ticketId)` of TicketSold, the registry's `ticket` and `eventRecord`
 * views, and the logs of the ticket's token (resales, transfers) and of its event (registration,
 * updates, cancellation). Check-ins and invalidations are packed records in unindexed logs: they are looked for
 * only when the ticket's flag says there is one, from the sale's block on.
 */
@Injectable()
export class TicketVerificationService {
  constructor(
    private readonly chain: ChainClient,
    @InjectConfig() private readonly config: AppConfig,
  ) {}

  get configured(): boolean {
    return this.chain.configured;
  }

  async verify(ticketId: string, filter: EventFilter | null): Promise<TicketVerification> {
    const ticketHash = ticketHashOf(ticketId);
    const wantedKey = filter ? eventKeyOf(filter.ticketeerId, filter.eventId) : null;
    const verification = await this.read((registry) => registry.filters.TicketSold(undefined, ticketHash), wantedKey);
    return { ...verification, ticketId, ticketHash, sales: wantedKey ? verification.sales.filter((sale) => sale.eventMatches) : verification.sales };
  }

  /** The same, for the ticket of one token: its sale found by the tokenId the TicketSold log indexes. No raw id is known or shown. */
  async verifyToken(tokenId: bigint): Promise<TicketVerification> {
    const verification = await this.read((registry) => registry.filters.TicketSold(tokenId), null);
    return { ...verification, ticketId: null, ticketHash: verification.sales[0]?.ticketHash ?? null };
  }

  /** Where a page reads: the chain, the registry and its latest block. */
  async whereRead(): Promise<Pick<TicketVerification, "chainId" | "registryAddress" | "latestBlock">> {
    const provider = await this.chain.connect();
    const [network, latestBlock] = await Promise.all([provider.getNetwork(), provider.getBlockNumber()]);
    return { chainId: network.chainId, registryAddress: getAddress(this.chain.registryAddress), latestBlock };
  }

  /**
   * One event as the chain records it, with where it was read; null when the registry has no event of
   * that index (its eventRecord view reverts with TicketRegistryEventUnknown).
   */
  async verifyEvent(eventIndex: bigint): Promise<(Omit<TicketVerification, "ticketId" | "ticketHash" | "sales"> & { event: VerifiedEvent }) | null> {
    const provider = await this.chain.connect();
    const registryAddress = getAddress(this.chain.registryAddress);
    const registry = TicketRegistry__factory.connect(registryAddress, provider);
    const [network, latestBlock] = await Promise.all([provider.getNetwork(), provider.getBlockNumber()]);
    const depthOf = (blockNumber: number) => Math.max(0, latestBlock - blockNumber + 1);
    const tx = (entry: Log): ChainTx => ({ txHash: entry.transactionHash, blockNumber: entry.blockNumber, depth: depthOf(entry.blockNumber) });
    try {
      await registry.eventRecord(eventIndex);
    } catch (error) {
      if (isUnknownEvent(error)) return null;
      throw error;
    }
    const event = await this.event(registry, eventIndex, tx);
    return { chainId: network.chainId, registryAddress, latestBlock, confirmations: this.config.chain.confirmations, event };
  }

  private async read(
    saleFilter: (registry: TicketRegistry) => ReturnType<TicketRegistry["filters"]["TicketSold"]>,
    wantedKey: string | null,
  ): Promise<Omit<TicketVerification, "ticketId" | "ticketHash">> {
    const provider = await this.chain.connect();
    const registryAddress = getAddress(this.chain.registryAddress);
    const registry = TicketRegistry__factory.connect(registryAddress, provider);
    const [network, latestBlock, soldLogs] = await Promise.all([
      provider.getNetwork(),
      provider.getBlockNumber(),
      registry.queryFilter(saleFilter(registry), this.fromBlock, "latest"),
    ]);
    const depthOf = (blockNumber: number) => Math.max(0, latestBlock - blockNumber + 1);
    return {
      chainId: network.chainId,
      registryAddress,
      latestBlock,
      confirmations: this.config.chain.confirmations,
      sales: await Promise.all(soldLogs.map((log) => this.sale(registry, log, depthOf, wantedKey))),
    };
  }

  private get fromBlock(): number {
    return this.config.chain.fromBlock;
  }

  private async sale(
    registry: TicketRegistry,
    log: TicketSoldEvent.Log,
    depthOf: (blockNumber: number) => number,
    wantedKey: string | null,
  ): Promise<VerifiedSale> {
    const tokenId = log.args.tokenId;
    const { eventIndex } = splitTokenId(tokenId);
    const saleBlock = log.blockNumber;
    const tx = (entry: Log): ChainTx => ({ txHash: entry.transactionHash, blockNumber: entry.blockNumber, depth: depthOf(entry.blockNumber) });
    const [view, event, resaleLogs, transferLogs] = await Promise.all([
      registry.ticket(tokenId),
      this.event(registry, eventIndex, tx),
      registry.queryFilter(registry.filters.TicketResold(tokenId), saleBlock, "latest"),
      registry.queryFilter(registry.filters.Transfer(undefined, undefined, tokenId), saleBlock, "latest"),
    ]);
    const [checkIns, invalidations] = await Promise.all([
      view.checkedIn ? this.records(registry, "TicketsCheckedIn", tokenId, saleBlock, tx) : [],
      view.invalidated ? this.records(registry, "TicketsInvalidated", tokenId, saleBlock, tx) : [],
    ]);
    const resaleTxs = new Set(resaleLogs.map((entry) => entry.transactionHash));
    const transfers = await Promise.all(
      transferLogs.map(async (entry) => {
        const { from, to } = entry.args;
        const kind: TransferKind =
          from === ZeroAddress ? "sale" : resaleTxs.has(entry.transactionHash) ? "resale" : (await registry.isCustodial(from)) ? "claim" : "transfer";
        return { ...tx(entry), from, to, kind };
      }),
    );
    return {
      tokenId,
      ticketHash: log.args.ticketHash,
      serial: view.serial,
      eventKey: view.eventKey,
      eventMatches: wantedKey === null ? null : view.eventKey.toLowerCase() === wantedKey.toLowerCase(),
      sale: { ...tx(log), price: log.args.price, orderTime: log.args.orderTime },
      holder: view.holder,
      checkedIn: view.checkedIn,
      invalidated: view.invalidated,
      claimed: view.claimed,
      eventCancelled: view.eventCancelled,
      resaleCount: Number(view.resales),
      event,
      resales: resaleLogs.map((entry) => ({ ...tx(entry), resales: Number(entry.args.resales), price: entry.args.price, orderTime: entry.args.orderTime })),
      checkIns,
      invalidations,
      transfers,
    };
  }

  private async event(registry: TicketRegistry, eventIndex: bigint, tx: (entry: Log) => ChainTx): Promise<VerifiedEvent> {
    const [record, registeredLogs, updatedLogs, cancelledLogs] = await Promise.all([
      registry.eventRecord(eventIndex),
      registry.queryFilter(registry.filters.EventRegistered(eventIndex), this.fromBlock, "latest"),
      registry.queryFilter(registry.filters.EventUpdated(eventIndex), this.fromBlock, "latest"),
      registry.queryFilter(registry.filters.EventCancelled(eventIndex), this.fromBlock, "latest"),
    ]);
    const cancellation = cancelledLogs.at(0) ?? null;
    const registered = registeredLogs.at(-1) ?? null;
    const last = updatedLogs.at(-1) ?? registered;
    const details = last ? detailsOf(last.args.details) : null;
    return {
      eventIndex,
      eventKey: record.eventKey,
      ticketeer: record.ticketeer,
      custody: record.custody,
      ticketsSold: record.ticketsSold,
      ticketsInCustody: record.ticketsInCustody,
      details,
      detailsMatchStorage: details !== null && detailsHashOf(details) === record.detailsHash.toLowerCase(),
      registered: registered ? tx(registered) : null,
      updates: updatedLogs.map(tx),
      cancelled: record.cancelled,
      cancellation: cancellation ? tx(cancellation) : null,
    };
  }

  /** The ticket's records in the registry's packed check-in or invalidation logs, from `fromBlock` on. */
  private async records(
    registry: TicketRegistry,
    name: "TicketsCheckedIn" | "TicketsInvalidated",
    tokenId: bigint,
    fromBlock: number,
    tx: (entry: Log) => ChainTx,
  ): Promise<(ChainTx & { orderTime: bigint })[]> {
    const logs = await registry.queryFilter(
      name === "TicketsCheckedIn" ? registry.filters.TicketsCheckedIn() : registry.filters.TicketsInvalidated(),
      fromBlock,
      "latest",
    );
    const found: (ChainTx & { orderTime: bigint })[] = [];
    for (const entry of logs) {
      const records = Buffer.from(entry.args.records.slice(2), "hex");
      for (let offset = 0; offset + RECORD_BYTES <= records.length; offset += RECORD_BYTES) {
        const recordTokenId = BigInt("0x" + records.subarray(offset, offset + 16).toString("hex"));
        if (recordTokenId === tokenId) found.push({ ...tx(entry), orderTime: records.readBigUInt64BE(offset + 16) });
      }
    }
    return found;
  }
}

/** The registry's revert for an event index it never registered, as ethers decodes it. */
function isUnknownEvent(error: unknown): boolean {
  const revert = (error as { revert?: { name?: string } } | null)?.revert;
  return revert?.name === "TicketRegistryEventUnknown";
}

function detailsOf(details: EventDetailsOnChain): EventDetailsOnChain {
  const { name, currency, shopUrl, imageUrl, latitude, longitude, startTime, endTime, organizer, metadataHash } = details;
  return { name, currency, shopUrl, imageUrl, latitude, longitude, startTime, endTime, organizer, metadataHash };
}

function detailsHashOf(details: EventDetailsOnChain): string {
  return keccak256(AbiCoder.defaultAbiCoder().encode([DETAILS_TUPLE], [details])).toLowerCase();
}
