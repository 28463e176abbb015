import type { SignedTransaction } from "../../src/chain/writer/signed-transaction";

/** The development account #1 the writer's unit tests sign as. */
export const TEST_SIGNER = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8";

/** A signed transaction at `nonce` for the writer's unit tests; its hash is the nonce, padded. */
export function signedTransaction(nonce: bigint, overrides: Partial<SignedTransaction> = {}): SignedTransaction {
  return {
    id: `tx-${nonce}`,
    signer: TEST_SIGNER,
    chainId: 31337n,
    nonce,
    attempt: 1,
    hash: `0x${nonce.toString(16).padStart(64, "0")}`,
    raw: "0x02",
    gasLimit: 100_000n,
    maxFeePerGas: 10n,
    maxPriorityFeePerGas: 1n,
    itemCount: 1,
    ...overrides,
  };
}
