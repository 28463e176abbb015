import { Injectable } from "@nestjs/common";
import { InjectDataSource } from "@nestjs/typeorm";
import { DataSource, type EntityManager } from "typeorm";

import { rowCount } from "../transaction-rows";

/** Where a nonce's actions go when none of its attempts will be mined. */
export type RequeueStatus = "waiting_broadcast" | "waiting_funds";

/**
 * What the writer's responses to a node's refusals change in the ledger: a nonce given up (its
 * attempts dropped, its actions back in line), the signer's last nonces taken back to be planned
 * again, and a signer's queued actions held or released while it cannot pay. Each change is one database
 * transaction, so a crash leaves either the old plan or the new one, never half of each.
 */
@Injectable()
export class RefusalsStore {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** The ids of the actions a nonce carries. */
  async actionIdsOf(signer: string, nonce: bigint): Promise<string[]> {
    const rows = await this.dataSource.query<{ id: string }[]>(`SELECT id FROM chain_actions WHERE tx_signer = $1 AND tx_nonce = $2 AND status = 'pending'`, [
      signer,
      nonce.toString(),
    ]);
    return rows.map((row) => row.id);
  }

  /**
   * The nonce was used by a transaction that is not ours (`nonce too low`): its attempts are dropped,
   * its actions wait again, and so do those of the later nonces from `withdrawFrom` on (none of them
   * held by the node), in acceptance order. The signer's next nonce moves to the chain's count, or
   * to `withdrawFrom` when that is higher. Returns how many actions went back.
   */
  async giveUpTakenNonce(signer: string, nonce: bigint, chainCount: bigint, withdrawFrom: bigint | null = null): Promise<number> {
    return this.dataSource.transaction(async (manager) => {
      await manager.query(`SELECT next_nonce FROM chain_signers WHERE address = $1 FOR UPDATE`, [signer]);
      let requeued = await dropNonce(manager, signer, nonce, "waiting_broadcast");
      if (withdrawFrom !== null) {
        for (const later of await openNoncesFrom(manager, signer, withdrawFrom)) requeued += await dropNonce(manager, signer, later, "waiting_broadcast");
      }
      const next = withdrawFrom === null ? "GREATEST(next_nonce, $2::bigint)" : "GREATEST($3::bigint, $2::bigint)";
      await manager.query(`UPDATE chain_signers SET next_nonce = ${next}, updated_at = now() WHERE address = $1`, [
        signer,
        chainCount.toString(),
        ...(withdrawFrom === null ? [] : [withdrawFrom.toString()]),
      ]);
      return requeued;
    });
  }

  /**
   * Takes back the signer's nonces from `fromNonce` on, none of them held by the node (refused as too
   * large, or for funds): their actions wait again as `status`, in acceptance order, and the next
   * batch is signed at `fromNonce`. Returns how many actions went back.
   */
  async withdrawFrom(signer: string, fromNonce: bigint, status: RequeueStatus): Promise<number> {
    return this.dataSource.transaction(async (manager) => {
      await manager.query(`SELECT next_nonce FROM chain_signers WHERE address = $1 FOR UPDATE`, [signer]);
      let requeued = 0;
      for (const nonce of await openNoncesFrom(manager, signer, fromNonce)) requeued += await dropNonce(manager, signer, nonce, status);
      await manager.query(`UPDATE chain_signers SET next_nonce = $2, updated_at = now() WHERE address = $1`, [signer, fromNonce.toString()]);
      return requeued;
    });
  }

  /** Queued actions of a signer's shard wait as waiting_funds; returns how many. */
  async hold(shardCount: number, shard: number): Promise<number> {
    return rowCount(
      await this.dataSource.query(
        `UPDATE chain_actions SET status = 'waiting_funds', updated_at = now() WHERE status = 'waiting_broadcast' AND shard_key % $1 = $2`,
        [shardCount, shard],
      ),
    );
  }

  /** The shard's waiting_funds actions are queued again; returns how many. */
  async release(shardCount: number, shard: number): Promise<number> {
    return rowCount(
      await this.dataSource.query(
        `UPDATE chain_actions SET status = 'waiting_broadcast', updated_at = now() WHERE status = 'waiting_funds' AND shard_key % $1 = $2`,
        [shardCount, shard],
      ),
    );
  }
}

/** The signer's open nonces from `fromNonce` on. */
async function openNoncesFrom(manager: EntityManager, signer: string, fromNonce: bigint): Promise<bigint[]> {
  const rows = await manager.query<{ nonce: string }[]>(
    `SELECT DISTINCT nonce FROM chain_transactions WHERE signer = $1 AND nonce >= $2 AND status IN ('signed', 'broadcast', 'mined') ORDER BY nonce`,
    [signer, fromNonce.toString()],
  );
  return rows.map((row) => BigInt(row.nonce));
}

/** Drops the nonce's open attempts and puts its actions back in line as `status`; returns how many went back. */
export async function dropNonce(manager: EntityManager, signer: string, nonce: bigint, status: RequeueStatus): Promise<number> {
  await manager.query(
    `UPDATE chain_transactions SET status = 'dropped', updated_at = now() WHERE signer = $1 AND nonce = $2 AND status IN ('signed', 'broadcast', 'mined')`,
    [signer, nonce.toString()],
  );
  return rowCount(
    await manager.query(
      `UPDATE chain_actions SET status = $3, tx_hash = NULL, tx_signer = NULL, tx_nonce = NULL, batch_index = NULL, updated_at = now()
        WHERE tx_signer = $1 AND tx_nonce = $2 AND status = 'pending'`,
      [signer, nonce.toString(), status],
    ),
  );
}
