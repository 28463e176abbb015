import type { EntityManager } from "typeorm";

/** Who holds a token after the Transfer log at (blockNumber, logIndex). */
export interface HolderChange {
  tokenId: bigint;
  holder: string;
  blockNumber: number;
  logIndex: number;
}

/**
 * Sets each ticket's holder, unless a later Transfer log (by block, then log index) set it already:
 * the receipt watcher (the service's own batches) and the transfer follower (wallets' transfers after a
 * claim) each record what they find, in whatever order they find it. One change per token.
 */
export async function recordTokenHolders(manager: EntityManager, changes: readonly HolderChange[]): Promise<void> {
  if (changes.length === 0) return;
  await manager.query(
    `UPDATE tickets AS t SET holder = u.holder, holder_block = u.block_number, holder_log_index = u.log_index, updated_at = now()
       FROM unnest($1::numeric[], $2::text[], $3::bigint[], $4::int[]) AS u(token_id, holder, block_number, log_index)
      WHERE t.token_id = u.token_id AND t.released_at IS NULL
        AND (t.holder_block IS NULL OR (t.holder_block, t.holder_log_index) < (u.block_number, u.log_index))`,
    [changes.map((c) => c.tokenId.toString()), changes.map((c) => c.holder), changes.map((c) => c.blockNumber), changes.map((c) => c.logIndex)],
  );
}
