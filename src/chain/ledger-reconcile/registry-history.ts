import type { JsonRpcProvider, Log } from "ethers";

import type { TicketRegistryInterface } from "../../../typechain-types/TicketRegistry";

import { splitTokenId } from "../../registry";

/** An event the registry holds, as its EventRegistered log tells. */
export interface RegisteredEvent {
  eventIndex: bigint;
  eventKey: string;
  blockNumber: number;
  txHash: string;
}

/** A ticket the registry minted, as its TicketSold log tells. */
export interface SoldTicket {
  tokenId: bigint;
  eventIndex: bigint;
  serial: bigint;
  ticketHash: string;
  blockNumber: number;
  txHash: string;
}

export interface RegistryHistory {
  events: RegisteredEvent[];
  tickets: SoldTicket[];
  /** Every transaction that left a log of the registry (every batch does), in chain order. */
  transactions: string[];
}

export interface HistoryRange {
  registryAddress: string;
  fromBlock: number;
  toBlock: number;
  /** The most blocks one eth_getLogs asks for (nodes refuse wide ranges). */
  maxBlockRange: number;
}

/**
 * The events registered, tickets sold and transactions of a range of blocks, read from the registry's
 * logs. EventRegistered and TicketSold carry what is needed in their indexed topics (eventIndex and
 * eventKey; tokenId and ticketHash), so no log data is decoded.
 */
export async function readRegistryHistory(provider: JsonRpcProvider, registry: TicketRegistryInterface, range: HistoryRange): Promise<RegistryHistory> {
  const registered = registry.getEvent("EventRegistered").topicHash;
  const sold = registry.getEvent("TicketSold").topicHash;
  const history: RegistryHistory = { events: [], tickets: [], transactions: [] };
  const transactions = new Set<string>();
  for (let from = range.fromBlock; from <= range.toBlock; from += range.maxBlockRange) {
    const to = Math.min(range.toBlock, from + range.maxBlockRange - 1);
    const logs = await provider.getLogs({ address: range.registryAddress, fromBlock: from, toBlock: to });
    for (const log of logs) {
      if (log.removed) continue;
      transactions.add(log.transactionHash);
      if (log.topics[0] === registered) history.events.push(registeredEvent(log));
      if (log.topics[0] === sold) history.tickets.push(soldTicket(log));
    }
  }
  history.transactions = [...transactions];
  return history;
}

function registeredEvent(log: Log): RegisteredEvent {
  return { eventIndex: BigInt(log.topics[1]), eventKey: log.topics[2], blockNumber: log.blockNumber, txHash: log.transactionHash };
}

function soldTicket(log: Log): SoldTicket {
  const tokenId = BigInt(log.topics[1]);
  return { tokenId, ...splitTokenId(tokenId), ticketHash: log.topics[2], blockNumber: log.blockNumber, txHash: log.transactionHash };
}
