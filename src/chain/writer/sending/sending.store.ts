import { Injectable } from "@nestjs/common";
import { InjectDataSource } from "@nestjs/typeorm";
import { DataSource, type EntityManager } from "typeorm";

import { uuidv7 } from "../../../common/uuid-v7";
import { insertCallbacks } from "../../../ledger/outbox";
import { registryItemFromJson } from "../../../registry";
import { CLOSED_ACTION_COLUMNS, type ClosedAction, closedActionsOf, type ClosedActionsResult } from "../closed-action";
import type { CarriedAction, NewlySignedTransaction, SignedTransaction } from "../signed-transaction";
import type { PendingAction } from "./pending-action";
import { insertTransaction, rowCount } from "../transaction-rows";
import { restoreFailedSubjects } from "../restore/accepted-state-restore.store";
import type { SubjectFactsReader } from "../restore/subject-facts";

/** An action that can never be sent (the codec refuses it, or it alone exceeds a transaction's limits). */
export interface UnencodableAction {
  id: string;
  reason: string;
  /** `onchain_unencodable` unless told otherwise. */
  code?: "onchain_unencodable" | "onchain_item_too_large";
}

/** A read of a shard's waiting actions: each organization's oldest, at most `perOrganization` of each. */
export interface WaitingActions {
  actions: PendingAction[];
  perOrganization: number;
}

/**
 * An action of the batch stopped waiting while its transaction was signed (it was cancelled, say):
 * nothing was committed, the nonce is still free, and the batch is planned again without it.
 */
export class ActionsChangedWhileSigning extends Error {
  constructor() {
    super("an action of the batch stopped waiting while its transaction was signed");
    this.name = "ActionsChangedWhileSigning";
  }
}

/**
 * What the sending side reads and writes in the ledger: the waiting actions, the signers' nonces,
 * and the signed transactions committed before they go out (their broadcast is BroadcastStore's).
 */
@Injectable()
export class SendingStore {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** Registers a signer the first time it writes, starting at the chain's count of its transactions. */
  async ensureSigner(address: string, chainId: bigint, chainNonce: bigint): Promise<void> {
    await this.dataSource.query(`INSERT INTO chain_signers (address, chain_id, next_nonce) VALUES ($1, $2, $3) ON CONFLICT (address) DO NOTHING`, [
      address,
      chainId.toString(),
      chainNonce.toString(),
    ]);
  }

  /**
   * The shard's actions waiting for the chain, in acceptance order, up to `limit` shared among the
   * organizations that have waiting actions: each organization's oldest, at most `perOrganization`
   * (`limit` divided by their number, rounded up) of each. The organizations are found by a skip
   * scan of chain_actions_waiting_organization_idx (one probe each) and each one's actions by a
   * range of it, so a backlog of one organization costs the read no more than its share. The range
   * is written `>= AND <=`, not `=`: the planner, which knows no organization's count for a lateral
   * parameter, would otherwise walk the seq indexes in order and filter by organization, through
   * every action of a backlog before it reaches another organization's (measured: 1.8 s instead of
   * 1 ms behind 200,000 waiting actions of one organization).
   */
  async readWaiting(shardCount: number, shardIndex: number, limit: number): Promise<WaitingActions> {
    const rows = await this.dataSource.query<
      { id: string; seq: string; payload: Record<string, unknown>; created_at: Date; organization_id: string; per_organization: number }[]
    >(
      `WITH RECURSIVE organizations AS (
         (SELECT organization_id FROM chain_actions WHERE status = 'waiting_broadcast' ORDER BY organization_id LIMIT 1)
         UNION ALL
         SELECT (SELECT a.organization_id FROM chain_actions a
                  WHERE a.status = 'waiting_broadcast' AND a.organization_id > o.organization_id ORDER BY a.organization_id LIMIT 1)
           FROM organizations o WHERE o.organization_id IS NOT NULL
       ), share AS (
         SELECT greatest(1, ceil($3::numeric / greatest(1, count(*))))::int AS per_organization FROM organizations WHERE organization_id IS NOT NULL
       )
       SELECT a.id, a.seq, a.payload, a.created_at, a.organization_id, (SELECT per_organization FROM share) AS per_organization
         FROM organizations o
         CROSS JOIN LATERAL (
           SELECT id, seq, payload, created_at, organization_id FROM chain_actions
            WHERE organization_id >= o.organization_id AND organization_id <= o.organization_id
              AND status = 'waiting_broadcast' AND shard_key % $1 = $2
            ORDER BY organization_id, seq LIMIT (SELECT per_organization FROM share)) a
        ORDER BY a.seq`,
      [shardCount, shardIndex, limit],
    );
    return {
      actions: rows.map((row) => ({
        id: row.id,
        seq: BigInt(row.seq),
        organizationId: row.organization_id,
        item: registryItemFromJson(row.payload),
        acceptedAt: row.created_at,
      })),
      perOrganization: rows[0]?.per_organization ?? limit,
    };
  }

  /** The shard's waiting actions as readWaiting reads them, in acceptance order. */
  async waitingActions(shardCount: number, shardIndex: number, limit: number): Promise<PendingAction[]> {
    return (await this.readWaiting(shardCount, shardIndex, limit)).actions;
  }

  /**
   * Nonces of this signer signed or sent and not yet seen mined: what the node holds, or will, in its
   * pool for the signer. A nonce one of whose attempts was seen in a block (`mined`, however deep)
   * holds none: counted until final, at CONFIRMATIONS=12 eight of them stopped the writer for 20 s
   * of every 24 while the chain had room. One a reorg takes back is `broadcast` again
   * (ReceiptsStore.markUnmined) and counts again, so no batch is signed while it waits.
   */
  async countNoncesInFlight(signer: string): Promise<number> {
    const [row] = await this.dataSource.query<{ count: number }[]>(
      `SELECT count(*)::int AS count FROM (
         SELECT nonce FROM chain_transactions WHERE signer = $1 AND status IN ('signed', 'broadcast', 'mined')
          GROUP BY nonce HAVING bool_and(status <> 'mined')) unmined`,
      [signer],
    );
    return row.count;
  }

  /**
   * Takes the signer's next nonce, signs with it and commits the raw transaction with its actions
   * before anything is broadcast: after a crash the same bytes are re-sent, never new ones. Each
   * action keeps its planned gas (`plannedGas`, in the order of `actions`), by which the receipt's gas
   * and fee are split among them; without it they share equally.
   */
  async commitNewTransaction(
    signer: string,
    actions: readonly PendingAction[],
    sign: (nonce: bigint) => Promise<NewlySignedTransaction>,
    plannedGas: readonly number[] = [],
  ): Promise<SignedTransaction & { carried: CarriedAction[] }> {
    return this.dataSource.transaction(async (manager) => {
      const [row] = await manager.query<{ next_nonce: string }[]>(`SELECT next_nonce FROM chain_signers WHERE address = $1 FOR UPDATE`, [signer]);
      // A nonce taken back unsent (see RefusalsStore.withdrawLastNonce) keeps its dropped attempts: number after them.
      const [{ attempts }] = await manager.query<{ attempts: number }[]>(
        `SELECT count(*)::int AS attempts FROM chain_transactions WHERE signer = $1 AND nonce = $2`,
        [signer, row.next_nonce],
      );
      const signed: SignedTransaction = { ...(await sign(BigInt(row.next_nonce))), id: uuidv7(), attempt: attempts + 1 };
      await insertTransaction(manager, signed);
      const carried = await claimActions(manager, signer, signed, actions, plannedGas);
      await manager.query(`UPDATE chain_signers SET next_nonce = next_nonce + 1, updated_at = now() WHERE address = $1`, [signer]);
      return { ...signed, carried };
    });
  }

  /** A fee bump: another attempt at the same nonce, carrying the same actions. */
  async commitReplacement(previous: SignedTransaction, replacement: NewlySignedTransaction): Promise<SignedTransaction> {
    const signed: SignedTransaction = { ...replacement, id: uuidv7(), attempt: previous.attempt + 1 };
    await this.dataSource.transaction(async (manager) => {
      await insertTransaction(manager, signed);
      await manager.query(`UPDATE chain_actions SET tx_hash = $1, updated_at = now() WHERE tx_signer = $2 AND tx_nonce = $3 AND status = 'pending'`, [
        signed.hash,
        signed.signer,
        signed.nonce.toString(),
      ]);
    });
    return signed;
  }

  /** Actions that can never be sent fail without a transaction, with their callbacks; returns those it failed. */
  async failUnencodable(refused: readonly UnencodableAction[], chainId: bigint, registryAddress: string, facts: SubjectFactsReader): Promise<ClosedAction[]> {
    return this.dataSource.transaction(async (manager) => {
      const failed = await manager.query<ClosedActionsResult>(
        `UPDATE chain_actions AS a SET status = 'error', error_code = u.code, error_message = u.reason, updated_at = now()
           FROM unnest($1::uuid[], $2::text[], $3::text[]) AS u(id, reason, code) WHERE a.id = u.id AND a.status = 'waiting_broadcast'
         RETURNING ${CLOSED_ACTION_COLUMNS}`,
        [refused.map((r) => r.id), refused.map((r) => r.reason), refused.map((r) => r.code ?? "onchain_unencodable")],
      );
      await insertCallbacks(
        manager,
        refused.map((r) => r.id),
        chainId,
        registryAddress,
      );
      const closed = closedActionsOf(failed);
      await restoreFailedSubjects(
        manager,
        closed.map((action) => action.id),
        facts,
      );
      return closed;
    });
  }
}

/** Puts the waiting actions in the transaction, at their batch index; throws if any stopped waiting meanwhile. */
async function claimActions(
  manager: EntityManager,
  signer: string,
  signed: SignedTransaction,
  actions: readonly PendingAction[],
  plannedGas: readonly number[],
): Promise<CarriedAction[]> {
  const claimed = await manager.query<[{ id: string; request_id: string | null }[], number]>(
    `UPDATE chain_actions AS a
        SET status = 'pending', tx_hash = $1, tx_signer = $2, tx_nonce = $3, batch_index = u.position - 1, planned_gas = u.planned_gas, updated_at = now()
       FROM unnest($4::uuid[], $5::int[]) WITH ORDINALITY AS u(id, planned_gas, position)
      WHERE a.id = u.id AND a.status = 'waiting_broadcast'
      RETURNING a.id, a.request_id`,
    [signed.hash, signer, signed.nonce.toString(), actions.map((action) => action.id), actions.map((_, index) => plannedGas[index] ?? null)],
  );
  if (rowCount(claimed) !== actions.length) throw new ActionsChangedWhileSigning();
  return claimed[0].map((row) => ({ id: row.id, requestId: row.request_id }));
}
