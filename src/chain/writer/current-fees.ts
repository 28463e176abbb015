import type { JsonRpcProvider } from "ethers";

import type { ChainConfig } from "../../config/app-config";

export interface Fees {
  maxFeePerGas: bigint;
  maxPriorityFeePerGas: bigint;
}

/** MIN_PRIORITY_FEE_GWEI and MAX_FEE_PER_GAS_GWEI, in wei. */
export type FeePolicy = ChainConfig["fees"];

/** The market now, as the configured node reads it, with the policy applied. */
export interface FeeQuote extends Fees {
  /** The latest block's base fee; the gas price on a chain without EIP-1559. */
  baseFeePerGas: bigint;
  /** What a transaction must offer to be mined now: base fee plus tip. */
  neededPerGas: bigint;
  /** The cap is below what is needed: nothing should be sent. */
  overCap: boolean;
}

const DEFAULT_PRIORITY_FEE = 1_000_000_000n;

/**
 * The fees the node suggests now, read from the node only (never a third-party fee service): the
 * latest base fee and eth_maxPriorityFeePerGas (1 gwei where the node has none), maxFeePerGas twice
 * the base fee plus the tip, as ethers does; twice the gas price plus the tip on a legacy chain. The
 * tip is raised to the policy's floor; maxFeePerGas is held to its cap, and `overCap` says when even
 * the base fee plus the tip exceeds it.
 */
export async function quoteFees(provider: JsonRpcProvider, policy: FeePolicy): Promise<FeeQuote> {
  const [block, suggestedTip] = await Promise.all([provider.getBlock("latest"), priorityFee(provider)]);
  const tip = max(suggestedTip, policy.minPriorityFeeWei);
  const base = block?.baseFeePerGas ?? BigInt((await provider.send("eth_gasPrice", [])) as string);
  const suggested = base * 2n + tip;
  const neededPerGas = base + tip;
  const cap = policy.maxFeePerGasWei;
  const overCap = cap !== null && neededPerGas > cap;
  const maxFeePerGas = cap !== null && !overCap && suggested > cap ? cap : suggested;
  return { maxFeePerGas, maxPriorityFeePerGas: tip, baseFeePerGas: base, neededPerGas, overCap };
}

/** The fees a batch or a replacement is sent with now (see quoteFees); the caller checks the cap. */
export async function currentFees(provider: JsonRpcProvider, policy: FeePolicy): Promise<Fees> {
  const { maxFeePerGas, maxPriorityFeePerGas } = await quoteFees(provider, policy);
  return { maxFeePerGas, maxPriorityFeePerGas };
}

async function priorityFee(provider: JsonRpcProvider): Promise<bigint> {
  try {
    return BigInt((await provider.send("eth_maxPriorityFeePerGas", [])) as string);
  } catch {
    // A node without the method (older or legacy chains): ethers' default.
    return DEFAULT_PRIORITY_FEE;
  }
}

function max(a: bigint, b: bigint): bigint {
  return a > b ? a : b;
}
