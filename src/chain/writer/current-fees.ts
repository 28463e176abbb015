import type { JsonRpcProvider } from "ethers";

export interface Fees {
  maxFeePerGas: bigint;
  maxPriorityFeePerGas: bigint;
}

/** The fees a batch is sent with now: the node's EIP-1559 suggestion, or twice its gas price on a legacy chain. */
export async function currentFees(provider: JsonRpcProvider): Promise<Fees> {
  const data = await provider.getFeeData();
  const maxPriorityFeePerGas = data.maxPriorityFeePerGas ?? 1_000_000_000n;
  return { maxFeePerGas: data.maxFeePerGas ?? (data.gasPrice ?? 0n) * 2n + maxPriorityFeePerGas, maxPriorityFeePerGas };
}
