import { getAddress, type Log, ZeroAddress } from "ethers";

import { inCustodialSpace } from "../../registry";

/** A claimed token's move from one wallet to another, as one Transfer log of the registry records it. */
export interface WalletTransfer {
  tokenId: bigint;
  from: string;
  to: string;
  txHash: string;
  blockNumber: number;
  blockHash: string;
  /** The log's index in its block: with the block, the order of every move of a token. */
  logIndex: number;
  /**
   * What names the move however often its logs are read, even after a reorg moved its transaction to
   * another block (and another logIndex): the transaction, the token, both wallets, and which such move
   * of that transaction it was.
   */
  key: string;
}

/**
 * The registry's Transfer logs that moved a token between wallets: not a mint (from zero), nor one of
 * the registry's own moves out of custody (a resale or a claim, from an address of its custodial space,
 * which `custodyMask` decodes). Logs are in chain order; so is the answer.
 */
export function walletTransfers(logs: readonly Log[], transferTopic: string, custodyMask: bigint): WalletTransfer[] {
  const seen = new Map<string, number>();
  const transfers: WalletTransfer[] = [];
  for (const log of logs) {
    const [topic, fromTopic, toTopic, tokenTopic] = log.topics;
    if (topic !== transferTopic || tokenTopic === undefined) continue;
    const from = addressOf(fromTopic);
    if (from === ZeroAddress || inCustodialSpace(custodyMask, from)) continue;
    const to = addressOf(toTopic);
    const tokenId = BigInt(tokenTopic);
    const move = `${log.transactionHash}/${tokenId}/${from}/${to}`;
    const occurrence = seen.get(move) ?? 0;
    seen.set(move, occurrence + 1);
    transfers.push({
      tokenId,
      from,
      to,
      txHash: log.transactionHash,
      blockNumber: log.blockNumber,
      blockHash: log.blockHash,
      logIndex: log.index,
      key: `${move}/${occurrence}`,
    });
  }
  return transfers;
}

function addressOf(topic: string): string {
  return getAddress("0x" + topic.slice(26));
}
