import { getAddress, type Interface, type JsonRpcProvider } from "ethers";

import type { RegistryItemFailure } from "../../../registry";

interface RawLog {
  address: string;
  topics: string[];
  logIndex: string;
}

/** A receipt as the node sends it, read without building ethers objects for thousands of logs. */
export interface MinedReceipt {
  hash: string;
  status: number;
  blockNumber: number;
  blockHash: string;
  gasUsed: bigint;
  /** The price per gas the transaction paid (base fee plus the tip it got): its fee is gasUsed × this. */
  effectiveGasPrice: bigint;
  logs: RawLog[];
}

interface RawReceipt {
  transactionHash: string;
  status: string;
  blockNumber: string;
  blockHash: string;
  gasUsed: string;
  /** Every node since London (EIP-1559) reports it. */
  effectiveGasPrice?: string;
  logs: RawLog[];
}

export async function fetchReceipt(provider: JsonRpcProvider, hash: string): Promise<MinedReceipt | null> {
  const raw = (await provider.send("eth_getTransactionReceipt", [hash])) as RawReceipt | null;
  if (!raw?.blockHash) return null;
  return {
    hash: raw.transactionHash,
    status: Number(raw.status),
    blockNumber: Number(raw.blockNumber),
    blockHash: raw.blockHash,
    gasUsed: BigInt(raw.gasUsed),
    effectiveGasPrice: BigInt(raw.effectiveGasPrice ?? 0),
    logs: raw.logs,
  };
}

/** What a mined batch did, read from its logs. */
export interface BatchOutcome {
  /** batch index → the registry's reason for skipping the item. */
  failures: Map<number, RegistryItemFailure>;
  /** tokenId → the address that holds it after the batch, and the index in the block of the Transfer log that says so. */
  holders: Map<bigint, TokenHolder>;
}

export interface TokenHolder {
  holder: string;
  logIndex: number;
}

/**
 * Both logs it needs have only indexed arguments: ItemFailed(index, subject, reason) and
 * Transfer(from, to, tokenId) are read straight from their topics.
 */
export function readBatchOutcome(registry: Interface, registryAddress: string, receipt: MinedReceipt): BatchOutcome {
  const itemFailed = registry.getEvent("ItemFailed")?.topicHash;
  const transfer = registry.getEvent("Transfer")?.topicHash;
  const failures = new Map<number, RegistryItemFailure>();
  const holders = new Map<bigint, TokenHolder>();
  const address = registryAddress.toLowerCase();
  for (const log of receipt.logs) {
    if (log.address.toLowerCase() !== address) continue;
    const [topic, first, second, third] = log.topics;
    if (topic === itemFailed) failures.set(Number(BigInt(first)), Number(BigInt(third)));
    if (topic === transfer) holders.set(BigInt(third), { holder: getAddress("0x" + second.slice(26)), logIndex: Number(log.logIndex) });
  }
  return { failures, holders };
}
