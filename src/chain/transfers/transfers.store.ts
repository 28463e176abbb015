import { Injectable } from "@nestjs/common";
import { InjectDataSource } from "@nestjs/typeorm";
import { DataSource, type EntityManager } from "typeorm";

import { uuidv7 } from "../../common/uuid-v7";
import { insertCallbacks } from "../../ledger/outbox";
import { recordTokenHolders } from "../token-holders";
import type { WalletTransfer } from "./wallet-transfers";

/** Where the registry's logs have been read up to: the next block to read, and the hash of the one before it. */
export interface LogCursor {
  chainId: bigint;
  registryAddress: string;
  nextBlock: number;
  lastBlockHash: string | null;
}

/** Another worker moved the cursor while this one read: what it read is dropped and read again from the new position. */
export class CursorMovedError extends Error {
  override name = "CursorMovedError";
}

/** The ledger's side of the transfer follower: its cursor, and each transfer as a confirmed action with its callback. */
@Injectable()
export class TransfersStore {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** The cursor of this chain's registry, created at `fromBlock` the first time. */
  async cursor(chainId: bigint, registryAddress: string, fromBlock: number): Promise<LogCursor> {
    await this.dataSource.query(
      `INSERT INTO registry_log_cursors (chain_id, registry_address, next_block) VALUES ($1, $2, $3) ON CONFLICT (chain_id, registry_address) DO NOTHING`,
      [chainId.toString(), registryAddress, fromBlock],
    );
    const [row] = await this.dataSource.query<{ next_block: string; last_block_hash: string | null }[]>(
      `SELECT next_block, last_block_hash FROM registry_log_cursors WHERE chain_id = $1 AND registry_address = $2`,
      [chainId.toString(), registryAddress],
    );
    return { chainId, registryAddress, nextBlock: Number(row.next_block), lastBlockHash: row.last_block_hash };
  }

  /** Whether any ticket of the ledger was ever claimed (accepted): before that, no token can move between wallets. */
  async anyClaimAccepted(): Promise<boolean> {
    const [row] = await this.dataSource.query<{ claimed: boolean }[]>(`SELECT EXISTS (SELECT 1 FROM tickets WHERE claimed) AS claimed`);
    return row.claimed;
  }

  /** The tokens among `tokenIds` whose ticket's claim is not final in the ledger yet (its callback is still to come). */
  async claimsNotFinal(tokenIds: readonly bigint[]): Promise<Set<bigint>> {
    if (tokenIds.length === 0) return new Set();
    const rows = await this.dataSource.query<{ token_id: string }[]>(
      `SELECT t.token_id FROM tickets t JOIN chain_actions a ON a.ticket_ref = t.id AND a.kind = 'claimed'
        WHERE t.token_id = ANY($1::numeric[]) AND a.status NOT IN ('confirmed', 'error', 'cancelled')`,
      [[...new Set(tokenIds.map(String))]],
    );
    return new Set(rows.map((row) => BigInt(row.token_id)));
  }

  /**
   * In one transaction: every transfer of a ticket of this ledger not recorded before becomes a confirmed
   * `transferred` action of its ticket with its callback, the tickets learn their holders, and the cursor
   * moves to `next` (only from where `cursor` says it is). Returns the cursor moved and the actions recorded.
   */
  async record(
    cursor: LogCursor,
    transfers: readonly WalletTransfer[],
    next: { nextBlock: number; lastBlockHash: string },
  ): Promise<{ cursor: LogCursor; recorded: string[] }> {
    return this.dataSource.transaction(async (manager) => {
      const recorded = await insertTransfers(manager, transfers);
      await insertCallbacks(manager, recorded, cursor.chainId, cursor.registryAddress);
      await recordTokenHolders(manager, lastOfEachToken(transfers));
      const [, moved] = await manager.query<[unknown, number]>(
        `UPDATE registry_log_cursors SET next_block = $4, last_block_hash = $5, updated_at = now()
          WHERE chain_id = $1 AND registry_address = $2 AND next_block = $3`,
        [cursor.chainId.toString(), cursor.registryAddress, cursor.nextBlock, next.nextBlock, next.lastBlockHash],
      );
      if (moved !== 1) throw new CursorMovedError(`the cursor of ${cursor.registryAddress} is no longer at block ${cursor.nextBlock}`);
      return { cursor: { ...cursor, ...next }, recorded };
    });
  }

  /** Puts the cursor back to `nextBlock` (a reorg deeper than the confirmations took blocks it had read). */
  async rewind(cursor: LogCursor, nextBlock: number): Promise<LogCursor> {
    await this.dataSource.query(
      `UPDATE registry_log_cursors SET next_block = $3, last_block_hash = NULL, updated_at = now() WHERE chain_id = $1 AND registry_address = $2`,
      [cursor.chainId.toString(), cursor.registryAddress, nextBlock],
    );
    return { ...cursor, nextBlock, lastBlockHash: null };
  }
}

/** The transfers of the ledger's tickets as confirmed actions, in chain order; the ids of those not recorded before. */
async function insertTransfers(manager: EntityManager, transfers: readonly WalletTransfer[]): Promise<string[]> {
  if (transfers.length === 0) return [];
  const rows = await manager.query<{ id: string }[]>(
    `INSERT INTO chain_actions (id, organization_id, kind, requested_as, event_ref, ticket_ref, status, payload, tx_hash, block_number, block_hash)
     SELECT u.id, t.organization_id, 'transferred', 'chain', t.event_ref, t.id, 'confirmed', u.payload, u.tx_hash, u.block_number, u.block_hash
       FROM unnest($1::uuid[], $2::numeric[], $3::jsonb[], $4::text[], $5::bigint[], $6::text[]) WITH ORDINALITY
            AS u(id, token_id, payload, tx_hash, block_number, block_hash, position)
       JOIN tickets t ON t.token_id = u.token_id AND t.released_at IS NULL
      ORDER BY u.position
     ON CONFLICT ((payload->>'key')) WHERE kind = 'transferred' DO NOTHING
     RETURNING id`,
    [
      transfers.map(() => uuidv7()),
      transfers.map((transfer) => transfer.tokenId.toString()),
      transfers.map((transfer) => JSON.stringify({ from: transfer.from, to: transfer.to, logIndex: transfer.logIndex, key: transfer.key })),
      transfers.map((transfer) => transfer.txHash),
      transfers.map((transfer) => transfer.blockNumber),
      transfers.map((transfer) => transfer.blockHash),
    ],
  );
  return rows.map((row) => row.id);
}

function lastOfEachToken(transfers: readonly WalletTransfer[]) {
  const last = new Map<bigint, WalletTransfer>();
  for (const transfer of transfers) last.set(transfer.tokenId, transfer);
  return [...last.values()].map(({ tokenId, to, blockNumber, logIndex }) => ({ tokenId, holder: to, blockNumber, logIndex }));
}
