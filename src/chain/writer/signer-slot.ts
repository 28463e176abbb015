import type { ChainSigner } from "../signers";

/** A signer as the writer shards its work: its wallet, and its shard among shardCount. */
export interface SignerSlot {
  wallet: ChainSigner;
  shard: number;
  shardCount: number;
}
