import type { JsonRpcProvider } from "ethers";

/**
 * The highest block whose transactions and logs count as confirmed: `confirmations` deep under the head
 * (1: the head itself), or with CONFIRMATIONS=finalized the node's `finalized` block. The receipt
 * watcher and the transfer follower hold what they read to the same rule.
 */
export async function confirmedThrough(provider: JsonRpcProvider, confirmations: number | "finalized"): Promise<number> {
  if (confirmations !== "finalized") return (await provider.getBlockNumber()) - confirmations + 1;
  const finalized = (await provider.send("eth_getBlockByNumber", ["finalized", false])) as { number: string } | null;
  if (!finalized) throw new Error('the node serves no "finalized" block, which CONFIRMATIONS=finalized needs');
  return Number(finalized.number);
}
