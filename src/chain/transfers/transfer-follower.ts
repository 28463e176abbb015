import { type BeforeApplicationShutdown, Injectable, Logger, type OnApplicationBootstrap } from "@nestjs/common";
import { InjectMetric } from "@willsoto/nestjs-prometheus";
import { getAddress, type JsonRpcProvider } from "ethers";
import type { Counter, Gauge } from "prom-client";

import type { AppConfig } from "../../config/app-config";
import { InjectConfig } from "../../config/config.module";
import { METRICS } from "../../metrics/metric-definitions";
import { custodyMaskOf } from "../../registry";
import { ChainClient } from "../chain-client";
import { confirmedThrough } from "../confirmed-block";
import { PollingLoop } from "../polling-loop";
import { SignerLocks } from "../writer/signer-locks";
import { CursorMovedError, type LogCursor, TransfersStore } from "./transfers.store";
import { type WalletTransfer, walletTransfers } from "./wallet-transfers";

/** How far back the cursor goes when a reorg deeper than the confirmations took a block it had read. */
const REWIND_BLOCKS = 256;

/**
 * Follows the registry's Transfer logs from its deployment block (REGISTRY_FROM_BLOCK), as deep as the
 * receipts are confirmed (CONFIRMATIONS, or the finalized block), and records every move of a claimed
 * token between wallets as a confirmed `transferred` action of its ticket, with its callback, and the
 * ticket's new holder. A transfer in a block that a reorg removes before it is confirmed is never read,
 * so it is never called back. Resumable: the cursor is in the ledger, moved in the transaction that
 * records what was read, and only one worker follows at a time. Until the first claim is accepted no
 * token can be in a wallet, and the logs are not read at all.
 */
@Injectable()
export class TransferFollower implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(TransferFollower.name);
  private readonly loop = new PollingLoop(
    () => this.pass(),
    () => this.config.chain.transfers.pollIntervalMs,
    (error) => this.logger.warn(`following the registry's transfers failed, retrying: ${error.message}`),
  );
  /** Blocks per log query: TRANSFER_MAX_BLOCK_RANGE, halved while the node refuses a range as too large. */
  private range: number;

  constructor(
    private readonly chain: ChainClient,
    private readonly store: TransfersStore,
    private readonly locks: SignerLocks,
    @InjectConfig() private readonly config: AppConfig,
    @InjectMetric(METRICS.transfersRecorded.name) private readonly recordedCounter: Counter<string>,
    @InjectMetric(METRICS.transferFollowerBehind.name) private readonly behindGauge: Gauge<string>,
  ) {
    this.range = config.chain.transfers.maxBlockRange;
  }

  onApplicationBootstrap(): void {
    if (this.chain.configured) this.loop.start();
  }

  beforeApplicationShutdown(): void {
    this.loop.stop();
  }

  /** One pass up to the confirmed block, by the one worker that holds the follower's lock. */
  private async pass(): Promise<void> {
    const registryAddress = getAddress(this.chain.registryAddress);
    const lock = await this.locks.tryAcquire(`transfer-follower:${registryAddress}`);
    if (!lock) return;
    try {
      await this.follow(await this.chain.connect(), registryAddress);
    } finally {
      await lock.release();
    }
  }

  private async follow(provider: JsonRpcProvider, registryAddress: string): Promise<void> {
    const chainId = await this.chain.chainId();
    const through = await confirmedThrough(provider, this.config.chain.confirmations);
    let cursor = await this.checkedCursor(provider, await this.store.cursor(chainId, registryAddress, this.config.chain.fromBlock));
    const mask = custodyMaskOf(chainId, registryAddress);
    this.behindGauge.set(Math.max(0, through - cursor.nextBlock + 1));
    // Asked after `through` was read: a claim mined at or below it was accepted before it was sent, so a
    // ledger with no claim has no token in a wallet up to there, and the cursor moves there at once.
    const claims = await this.store.anyClaimAccepted();
    while (cursor.nextBlock <= through && !this.loop.isStopped) {
      const to = claims ? Math.min(through, cursor.nextBlock + this.range - 1) : through;
      const found = claims ? await this.transfersIn(provider, cursor, to, mask) : { transfers: [], lastBlockHash: await blockHash(provider, to) };
      if (found === null) continue;
      const read = await this.upToUnfinishedClaims(provider, found, to);
      try {
        const { cursor: moved, recorded } = await this.store.record(cursor, read.transfers, { nextBlock: read.nextBlock, lastBlockHash: read.lastBlockHash });
        if (recorded.length > 0)
          this.logger.log(`${recorded.length} transfer(s) of claimed tokens in blocks ${cursor.nextBlock} to ${read.nextBlock - 1} recorded`);
        this.recordedCounter.inc(recorded.length);
        cursor = moved;
        this.behindGauge.set(Math.max(0, through - cursor.nextBlock + 1));
      } catch (error) {
        if (error instanceof CursorMovedError) return;
        throw error;
      }
      if (read.nextBlock <= to) return;
    }
  }

  /**
   * The transfers read, up to the first block holding a transfer of a token whose claim the receipt watcher has
   * not finalized yet (both read the same depth, each on its own loop): the cursor stops there, so that a ticket's
   * claimed callback always comes before its transfers'. The rest is read again at a later pass.
   */
  private async upToUnfinishedClaims(
    provider: JsonRpcProvider,
    found: { transfers: WalletTransfer[]; lastBlockHash: string },
    to: number,
  ): Promise<{ transfers: WalletTransfer[]; nextBlock: number; lastBlockHash: string }> {
    const waiting = await this.store.claimsNotFinal(found.transfers.map((transfer) => transfer.tokenId));
    const first = found.transfers.find((transfer) => waiting.has(transfer.tokenId));
    if (!first) return { ...found, nextBlock: to + 1 };
    const before = found.transfers.filter((transfer) => transfer.blockNumber < first.blockNumber);
    return { transfers: before, nextBlock: first.blockNumber, lastBlockHash: await blockHash(provider, first.blockNumber - 1) };
  }

  /**
   * The wallet transfers of blocks cursor.nextBlock to `to` and the hash of block `to`; null when the node
   * refused the range as too large (it is halved for the next try).
   */
  private async transfersIn(provider: JsonRpcProvider, cursor: LogCursor, to: number, mask: bigint) {
    const transferTopic = this.chain.registry.getEvent("Transfer").topicHash;
    try {
      const [logs, lastBlockHash] = await Promise.all([
        provider.getLogs({ address: cursor.registryAddress, topics: [transferTopic], fromBlock: cursor.nextBlock, toBlock: to }),
        blockHash(provider, to),
      ]);
      this.range = Math.min(this.config.chain.transfers.maxBlockRange, this.range * 2);
      return { transfers: walletTransfers(logs, transferTopic, mask), lastBlockHash };
    } catch (error) {
      if (this.range === 1 || !isRangeRefusal(error)) throw error;
      this.range = Math.max(1, Math.floor(this.range / 2));
      this.logger.warn(`the node refused the logs of blocks ${cursor.nextBlock} to ${to}; reading ${this.range} block(s) at a time`);
      return null;
    }
  }

  /** The cursor, put back REWIND_BLOCKS when the block it last read is no longer on the chain (a reorg deeper than the confirmations). */
  private async checkedCursor(provider: JsonRpcProvider, cursor: LogCursor): Promise<LogCursor> {
    if (cursor.lastBlockHash === null) return cursor;
    const lastRead = await provider.getBlock(cursor.nextBlock - 1);
    if (lastRead?.hash === cursor.lastBlockHash) return cursor;
    const back = Math.max(this.config.chain.fromBlock, cursor.nextBlock - REWIND_BLOCKS);
    this.logger.error(
      `block ${cursor.nextBlock - 1} of the registry's transfers is no longer on the chain (a reorg deeper than CONFIRMATIONS): ` +
        `reading again from block ${back}; transfers already called back stay recorded`,
    );
    return this.store.rewind(cursor, back);
  }
}

async function blockHash(provider: JsonRpcProvider, blockNumber: number): Promise<string> {
  const block = await provider.getBlock(blockNumber);
  if (!block?.hash) throw new Error(`the node has no block ${blockNumber}`);
  return block.hash;
}

/** A node's refusal of a log query as too large (geth, Erigon and the hosted providers word it differently). */
function isRangeRefusal(error: unknown): boolean {
  const message = String((error as { error?: { message?: string } })?.error?.message ?? (error as Error)?.message ?? "");
  return /too many|range|limit|exceed|query returned more than|response size/i.test(message);
}
