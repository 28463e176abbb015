import type { JsonRpcProvider } from "ethers";

import type { TicketRegistryInterface } from "../../../typechain-types/TicketRegistry";
import { type BatchAction, batchItemSubjects, type RegistryItemFailure } from "../../registry";
import type { HolderChange } from "../token-holders";
import { fetchReceipt, readBatchOutcome } from "../writer/receipts/mined-receipt";

/** An item of a mined batch of the ledger's signers, with what the registry made of it. */
export interface LostBatchItem {
  action: BatchAction;
  subject: bigint;
  txHash: string;
  blockNumber: number;
  blockHash: string;
  /** The registry's reason for skipping the item; null when it applied it. */
  failure: RegistryItemFailure | null;
}

export interface LostBatches {
  items: LostBatchItem[];
  holders: HolderChange[];
}

/**
 * The items of the batches among `hashes` that one of `signers` sent to the registry and that did not
 * revert (a reverted batch applied nothing), in chain order, with what the registry made of each.
 */
export async function readLostBatches(
  provider: JsonRpcProvider,
  registry: TicketRegistryInterface,
  registryAddress: string,
  signers: readonly string[],
  hashes: readonly string[],
): Promise<LostBatches> {
  const ours = new Set(signers.map((signer) => signer.toLowerCase()));
  const lost: LostBatches = { items: [], holders: [] };
  for (const hash of hashes) {
    const transaction = await provider.getTransaction(hash);
    if (!transaction || !ours.has(transaction.from.toLowerCase()) || transaction.to?.toLowerCase() !== registryAddress.toLowerCase()) continue;
    const receipt = await fetchReceipt(provider, hash);
    if (!receipt || receipt.status !== 1) continue;
    const [batch] = registry.decodeFunctionData("execute", transaction.data) as unknown as [string];
    const { failures, holders } = readBatchOutcome(registry, registryAddress, receipt);
    batchItemSubjects(batch).forEach((item, index) =>
      lost.items.push({ ...item, txHash: hash, blockNumber: receipt.blockNumber, blockHash: receipt.blockHash, failure: failures.get(index) ?? null }),
    );
    for (const [tokenId, { holder, logIndex }] of holders) lost.holders.push({ tokenId, holder, blockNumber: receipt.blockNumber, logIndex });
  }
  return lost;
}
