import { type BeforeApplicationShutdown, Injectable, Logger, type OnApplicationBootstrap } from "@nestjs/common";
import type { JsonRpcProvider } from "ethers";

import type { AppConfig } from "../../../config/app-config";
import { InjectConfig } from "../../../config/config.module";
import { ChainClient } from "../../chain-client";
import { PollingLoop } from "../../polling-loop";
import type { ChainSigner } from "../../signers";
import { LedgerBinding } from "../binding/ledger-binding";
import type { SignerSlot } from "../signer-slot";
import { SignerLocks } from "../signer-locks";
import { SignerWatch } from "./signer-watch";

/**
 * Follows every sent nonce to its end, every RECEIPT_POLL_MS: marks it mined, finalizes it at the
 * configured depth, re-sends bytes the node lost (a crash before broadcast, a restarted node, a
 * reorg), replaces a transaction stuck below the market with higher fees, and answers the node's
 * refusals of what it sends (see SignerWatch). One watcher per signer across all workers.
 */
@Injectable()
export class ReceiptWatcher implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(ReceiptWatcher.name);
  private readonly wallets: ChainSigner[];
  private readonly loop = new PollingLoop(
    () => this.watch(),
    () => this.config.chain.writer.pollIntervalMs,
    (error) => this.logger.warn(`receipt watch failed, retrying: ${error.message}`),
  );

  constructor(
    private readonly chain: ChainClient,
    private readonly binding: LedgerBinding,
    private readonly locks: SignerLocks,
    private readonly signers: SignerWatch,
    @InjectConfig() private readonly config: AppConfig,
  ) {
    this.wallets = chain.signers();
  }

  onApplicationBootstrap(): void {
    if (this.chain.configured) this.loop.start();
  }

  /** Stops before the connections close; a restarted watcher picks up where this one stopped. */
  beforeApplicationShutdown(): void {
    this.loop.stop();
  }

  /** One pass over every signer; exposed for tests. */
  poll(): Promise<void> {
    return this.loop.runOnce();
  }

  private async watch(): Promise<void> {
    const provider = await this.chain.connect();
    // Resends and fee bumps go to the ledger's registry only (see LedgerBinding).
    if (!(await this.binding.allowsWriting(provider))) return;
    for (const [shard, wallet] of this.wallets.entries()) await this.watchSigner(provider, { wallet, shard, shardCount: this.wallets.length });
  }

  private async watchSigner(provider: JsonRpcProvider, slot: SignerSlot): Promise<void> {
    const lock = await this.locks.tryAcquire(`watcher:${slot.wallet.address}`);
    if (!lock) return;
    try {
      await this.signers.pass(provider, slot);
    } finally {
      await lock.release();
    }
  }
}
