import { Injectable } from "@nestjs/common";
import { InjectDataSource } from "@nestjs/typeorm";
import { DataSource, type EntityManager } from "typeorm";

import { dropNonce } from "../refusals/refusals.store";

/** An attempt of the ledger's found in a block by its receipt. */
export interface FoundMined {
  id: string;
  blockNumber: number;
  blockHash: string;
}

/** What reconciling a signer changes in its ledger rows. */
export interface ReconcilePlan {
  mined: readonly FoundMined[];
  /** Open nonces the chain took with other transactions. */
  givenUp: readonly bigint[];
  /** Open nonces neither mined nor held by the node, from the next one the signer signs on. */
  withdrawn: readonly bigint[];
  /** The next nonce to sign: never below a nonce the ledger saw final. */
  nextNonce: bigint;
}

/**
 * Applies a signer's reconciliation in one database transaction: its own transactions found mined are
 * marked so (the receipt watcher finalizes them), the nonces the chain took otherwise and every later
 * one the node does not hold are dropped with their actions back in line (in acceptance order: their
 * seq), the next nonce follows the chain, and the stop is cleared.
 */
@Injectable()
export class ReconcileStore {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** The signer's next nonce, or null for a signer that never wrote. */
  async nextNonce(signer: string): Promise<bigint | null> {
    const [row] = await this.dataSource.query<{ next_nonce: string }[]>(`SELECT next_nonce FROM chain_signers WHERE address = $1`, [signer]);
    return row ? BigInt(row.next_nonce) : null;
  }

  /** Returns how many actions went back in line, and the next nonce as written. */
  async apply(signer: string, plan: ReconcilePlan): Promise<{ requeued: number; nextNonce: bigint }> {
    return this.dataSource.transaction(async (manager) => {
      await manager.query(`SELECT next_nonce FROM chain_signers WHERE address = $1 FOR UPDATE`, [signer]);
      for (const found of plan.mined) await markMined(manager, found);
      let requeued = 0;
      for (const nonce of [...plan.givenUp, ...plan.withdrawn]) requeued += await dropNonce(manager, signer, nonce, "waiting_broadcast");
      const [[row]] = await manager.query<[{ next_nonce: string }[], number]>(
        `UPDATE chain_signers SET
            next_nonce = GREATEST($2::bigint, (SELECT COALESCE(max(nonce) + 1, 0) FROM chain_transactions WHERE signer = $1 AND status IN ('confirmed', 'reverted', 'mined'))),
            stopped_at = NULL, stop_detail = NULL, updated_at = now()
          WHERE address = $1 RETURNING next_nonce`,
        [signer, plan.nextNonce.toString()],
      );
      return { requeued, nextNonce: BigInt(row.next_nonce) };
    });
  }
}

async function markMined(manager: EntityManager, found: FoundMined): Promise<void> {
  await manager.query(
    `UPDATE chain_transactions SET status = 'mined', block_number = $2, block_hash = $3, updated_at = now() WHERE id = $1 AND status IN ('signed', 'broadcast', 'mined')`,
    [found.id, found.blockNumber, found.blockHash],
  );
}
