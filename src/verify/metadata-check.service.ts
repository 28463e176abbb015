import { Injectable } from "@nestjs/common";

import { ChainClient } from "../chain/chain-client";
import { eventMetadataHash } from "../registry";
import { servedMetadata, type ServedMetadata } from "../tokens/served-metadata";
import { LedgerMetadataStore } from "../tokens/ledger-metadata.store";
import { recordedMetadataHash } from "./metadata-records";
import { MetadataWritesStore } from "./metadata-writes.store";

/** What the registry records as a token's metadata hash, and where. */
export interface RecordedMetadata {
  hash: string;
  txHash: string;
  blockNumber: number;
}

/**
 * Whether the metadata `/tokens/{tokenId}` serves is the metadata the chain records: `matches`, `differs`,
 * or `none` when no record of the token is found (a ticket sold without metadata of its own, or whose
 * first write is not mined yet).
 */
export interface MetadataCheck {
  served: ServedMetadata;
  recorded: RecordedMetadata | null;
  verdict: "matches" | "differs" | "none";
  /** A metadata write of the token is still on its way: a difference may be that one. */
  writeOnItsWay: boolean;
  /** The same of its event's off-chain metadata (description, ticket image), whose hash the event's details on chain carry. */
  event: { served: string; recorded: string | null; verdict: "matches" | "differs" | "none" };
}

/**
 * Compares the served metadata's hash with the token's latest record on chain. The ledger names the
 * transactions of the token's metadata writes; the hash itself is read from their receipts, from the
 * registry's own logs: a few receipts per page, never a scan of the chain's logs.
 */
@Injectable()
export class MetadataCheckService {
  constructor(
    private readonly chain: ChainClient,
    private readonly ledger: LedgerMetadataStore,
    private readonly writes: MetadataWritesStore,
  ) {}

  /** `eventRecorded`: the metadataHash of the event's details as the chain logged them last; null when they were not found. */
  async check(tokenId: bigint, eventRecorded: string | null): Promise<MetadataCheck> {
    const [metadata, sent, writeOnItsWay] = await Promise.all([
      this.ledger.metadataOf(tokenId),
      this.writes.sentWrites(tokenId),
      this.writes.writeOnItsWay(tokenId),
    ]);
    const served = servedMetadata(metadata.ticket);
    const recorded = await this.latestRecord(
      tokenId,
      sent.map((write) => write.txHash),
    );
    const verdict = recorded === null ? "none" : recorded.hash.toLowerCase() === served.metadata_hash.toLowerCase() ? "matches" : "differs";
    const eventServed = eventMetadataHash(metadata.event);
    const eventVerdict = eventRecorded === null ? "none" : eventRecorded.toLowerCase() === eventServed.toLowerCase() ? "matches" : "differs";
    return { served, recorded, verdict, writeOnItsWay, event: { served: eventServed, recorded: eventRecorded, verdict: eventVerdict } };
  }

  /** The record of the newest of these transactions that is mined, did not revert and holds one for the token. */
  private async latestRecord(tokenId: bigint, txHashes: readonly string[]): Promise<RecordedMetadata | null> {
    const provider = await this.chain.connect();
    for (const txHash of txHashes) {
      const receipt = await provider.getTransactionReceipt(txHash);
      if (!receipt || receipt.status !== 1) continue;
      const hash = recordedMetadataHash(this.chain.registry, this.chain.registryAddress, receipt.logs, tokenId);
      if (hash) return { hash, txHash, blockNumber: receipt.blockNumber };
    }
    return null;
  }
}
