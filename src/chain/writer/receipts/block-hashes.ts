import type { JsonRpcProvider } from "ethers";

/** The canonical block hash at each height, read from the node once per watcher pass (several batches share a block). */
export class BlockHashes {
  private readonly hashes = new Map<number, Promise<string | null>>();

  constructor(private readonly provider: JsonRpcProvider) {}

  /** The hash of the node's block at `number` now, or null when it has none. */
  at(number: number): Promise<string | null> {
    let hash = this.hashes.get(number);
    if (!hash) {
      hash = this.provider.getBlock(number).then((block) => block?.hash ?? null);
      // A failed read is not kept: the next caller asks again.
      hash.catch(() => this.hashes.delete(number));
      this.hashes.set(number, hash);
    }
    return hash;
  }
}
