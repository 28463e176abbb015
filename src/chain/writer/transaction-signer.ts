import { concat, type Interface, keccak256, Transaction } from "ethers";

import type { ChainSigner } from "../signers";
import type { Fees } from "./current-fees";
import type { NewlySignedTransaction, SignedTransaction } from "./signed-transaction";

export interface UnsignedBatch {
  chainId: bigint;
  registryAddress: string;
  /** The encoded items, in order. */
  items: string[];
  gasLimit: bigint;
}

/** Signs an EIP-1559 call of `execute(batch)` locally: the raw bytes are what the ledger keeps. */
export async function signBatch(wallet: ChainSigner, registry: Interface, batch: UnsignedBatch, nonce: bigint, fees: Fees): Promise<NewlySignedTransaction> {
  const data = registry.encodeFunctionData("execute", [concat(batch.items)]);
  return signCall(wallet, { chainId: batch.chainId, to: batch.registryAddress, data, gasLimit: batch.gasLimit, nonce, itemCount: batch.items.length }, fees);
}

/** The same call at the same nonce with higher fees: a replacement the node must accept (≥ 10% more on both). */
export async function signReplacement(wallet: ChainSigner, previous: SignedTransaction, fees: Fees): Promise<NewlySignedTransaction> {
  const original = Transaction.from(previous.raw);
  return signCall(
    wallet,
    {
      chainId: previous.chainId,
      to: original.to as string,
      data: original.data,
      gasLimit: original.gasLimit,
      nonce: previous.nonce,
      itemCount: previous.itemCount,
    },
    fees,
  );
}

export function bumpedFees(previous: Fees, current: Fees, bumpPercent: number): Fees {
  const bump = (value: bigint) => (value * BigInt(100 + bumpPercent) + 99n) / 100n;
  const maxPriorityFeePerGas = max(bump(previous.maxPriorityFeePerGas), current.maxPriorityFeePerGas);
  const maxFeePerGas = max(max(bump(previous.maxFeePerGas), current.maxFeePerGas), maxPriorityFeePerGas);
  return { maxFeePerGas, maxPriorityFeePerGas };
}

interface Call {
  chainId: bigint;
  to: string;
  data: string;
  gasLimit: bigint;
  nonce: bigint;
  itemCount: number;
}

async function signCall(wallet: ChainSigner, call: Call, fees: Fees): Promise<NewlySignedTransaction> {
  const raw = await wallet.signTransaction({
    type: 2,
    chainId: call.chainId,
    nonce: Number(call.nonce),
    to: call.to,
    data: call.data,
    value: 0n,
    gasLimit: call.gasLimit,
    maxFeePerGas: fees.maxFeePerGas,
    maxPriorityFeePerGas: fees.maxPriorityFeePerGas,
  });
  return {
    signer: wallet.address,
    chainId: call.chainId,
    nonce: call.nonce,
    hash: keccak256(raw),
    raw,
    gasLimit: call.gasLimit,
    maxFeePerGas: fees.maxFeePerGas,
    maxPriorityFeePerGas: fees.maxPriorityFeePerGas,
    itemCount: call.itemCount,
  };
}

function max(a: bigint, b: bigint): bigint {
  return a > b ? a : b;
}
